"""single_spaced: text that `" ".join(text.split())` gives back unchanged; cut_short: the
ellipsis of a cut text, none after a sentence's end."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.text.spacing import cut_short, single_spaced


@pytest.mark.parametrize(("text", "expected"), [
    ("one two", True), ("", True), ("one  two", False), (" one", False), ("one\ttwo", False),
    ("café crème", True), ("café\u00a0crème", False), ("東京 の", True), ("a\u2028b", False),
])
def test_single_spaced(text: str, expected: bool) -> None:
    assert single_spaced(text) is expected


@given(st.text())
def test_single_spaced_text_is_what_split_and_join_give_back(text: str) -> None:
    # (it may say no to some such text, unprintable characters, which is then collapsed:
    # the same result)
    if single_spaced(text):
        assert " ".join(text.split()) == text


@pytest.mark.parametrize(("text", "expected"), [
    ("It is 330 metres", "It is 330 metres\u2026"), ("It is 330 metres tall.", "It is 330 metres tall."),
    ('He said "go."', 'He said "go."'), ("Is it tall?)", "Is it tall?)"), ("塔很高。", "塔很高。"),
    ("हाँ।", "हाँ।"), ("a.b", "a.b\u2026"), ("", "\u2026"), ('"', '"\u2026'),
])
def test_cut_short_marks_a_cut_with_an_ellipsis_but_not_after_a_full_stop(
        text: str, expected: str) -> None:
    assert cut_short(text) == expected
