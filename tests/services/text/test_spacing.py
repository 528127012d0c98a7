"""single_spaced: text that `" ".join(text.split())` gives back unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.text.spacing import single_spaced


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
