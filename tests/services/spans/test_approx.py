"""The bit-parallel approximate search against a plain dynamic-programming oracle."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.text.approx import approx_search, match_quote, search

_ALPHABET = st.sampled_from("abc é")


def _oracle_end_errors(text: str, pattern: str) -> list[int]:
    """Lowest edit distance of `pattern` to any substring of `text` ending at each end."""
    previous = list(range(len(pattern) + 1))
    errors: list[int] = []
    for char in text:
        current = [0]
        for i in range(1, len(pattern) + 1):
            cost = previous[i - 1] + (pattern[i - 1] != char)
            current.append(min(previous[i] + 1, current[i - 1] + 1, cost))
        previous = current
        errors.append(current[-1])
    return errors


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
            )
        previous = current
    return previous[-1]


@settings(max_examples=300, deadline=None)
@given(
    st.text(_ALPHABET, min_size=1, max_size=40),
    st.text(_ALPHABET, min_size=1, max_size=80),
)
def test_search_finds_every_lowest_error_end(text: str, pattern: str) -> None:
    errors = _oracle_end_errors(text, pattern)
    lowest = min(errors)
    matches = approx_search(text, pattern, max_errors=len(pattern) + len(text))
    assert [m.end for m in matches] == [
        end + 1 for end, e in enumerate(errors) if e == lowest
    ]
    for match in matches:
        assert match.errors == lowest
        assert _distance(text[match.start : match.end], pattern) == lowest


def test_search_respects_the_error_budget() -> None:
    assert approx_search("abcdef", "xyz", max_errors=2) == []
    matches = approx_search("abcdef", "abx", max_errors=1)
    assert [(m.start, m.end, m.errors) for m in matches] == [(0, 2, 1), (0, 3, 1)]


def test_exact_occurrences_are_all_reported() -> None:
    assert [(m.start, m.end) for m in search("abab ab", "ab", 1)] == [
        (0, 2),
        (2, 4),
        (5, 7),
    ]


def test_longest_start_is_chosen_among_equal_errors() -> None:
    match = match_quote("Many years later", "some years later")
    assert match is not None and (match.start, match.end) == (0, 16)


def test_long_patterns_are_supported() -> None:
    text = "x" * 50 + "the quick brown fox " * 10 + "y" * 50
    quote = ("the quick brown fox " * 10).strip().replace("quick", "quack", 1)
    match = match_quote(text, quote)
    assert match is not None and match.errors == 1 and match.start == 50
