"""The ends of an atom's span (services.text.atoms)."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from services.text.atoms import _trimmed


def _by_character(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The rule, character by character: blanks and marks off both ends."""
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return (start, end) if end > start else None


@given(st.text(alphabet=string.printable + "é“”—。字", max_size=60), st.data())
def test_the_ends_are_trimmed_as_character_by_character(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert _trimmed(text, start, end) == _by_character(text, start, end)


def test_blanks_and_clause_punctuation_leave_the_words() -> None:
    assert _trimmed("  said, “so.”  ", 0, 15) == (2, 11)
    assert _trimmed("Evidence  [1] .", 0, 15) == (0, 12)
    assert _trimmed(" ,;. ", 0, 5) is None
