"""single_spaced: text that `" ".join(text.split())` gives back unchanged; cut_short: the
ellipsis of a cut text, none after a sentence's end; excerpt: the first words of a text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.text.spacing import EXCERPT_CHARS, cut_short, excerpt, single_spaced


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("short  text\n here", "short text here"),
        ("word " * 60, ("word " * 40).strip() + "\u2026"),
        ("x" * 300, "x" * EXCERPT_CHARS + "\u2026"),
        ("a " * 100, ("a " * 100).strip()),
        (" \n" * 400 + "word " * 60, ("word " * 40).strip() + "\u2026"),
        # cut right after a sentence: no ellipsis after its full stop ("tall.\u2026")
        ("A" * 190 + " is tall. More words follow here.", "A" * 190 + " is tall."),
    ],
)
def test_excerpt(text: str, expected: str) -> None:
    assert excerpt(text) == expected


def test_excerpt_is_about_200_characters_cut_at_a_word() -> None:
    text = "word " * 100
    short = excerpt(text)
    assert (
        len(short) <= 201 and short.endswith("\u2026") and not short[:-1].endswith(" ")
    )
    assert excerpt("  short\n text ") == "short text"


def test_excerpt_reads_past_whitespace_runs() -> None:
    assert excerpt("a" + " " * 500 + "b") == "a b"
    assert excerpt("a" + " " * 500 + "word " * 60) == "a " + ("word " * 39).strip() + "\u2026"


def _reference_excerpt(text: str, limit: int = 200) -> str:
    """`excerpt` as specified: collapse whitespace, cut at a word (unless that loses more
    than 50 characters) with an ellipsis."""
    collapsed = " ".join(text.split())
    if len(collapsed) <= limit:
        return collapsed
    cut = collapsed.rfind(" ", 0, limit + 1)
    return cut_short(collapsed[: cut if cut >= limit - 50 else limit].rstrip())


def test_an_excerpt_cut_after_a_sentence_has_no_ellipsis() -> None:
    text = "The tower is tall. " * 10 + "Uninterruptedlylongwordwithoutanyspaces"
    short = excerpt(text)
    assert short.endswith("tall.") and not short.endswith(".\u2026")


@pytest.mark.parametrize(
    "text",
    [
        "word " * 40 + "end",
        ("word " * 50).strip(),
        "x" * 250,
        "ab\x00cd " * 60,
        "caf\u00e9 " * 60,
        "tab\there " * 40,
        "nbsp\u00a0here " * 40,
        " leading " * 40,
        "ctl\x7f " * 70,
        "sep\x1chere " * 40,
        "vt\x0bhere",
        "short",
        "End. " * 60,
    ],
)
def test_excerpt_fast_path_agrees_with_split_and_join(text: str) -> None:
    assert excerpt(text) == _reference_excerpt(text)
