"""Protected intervals: the regex scans find the same pairs as the plain event walk below."""

from __future__ import annotations

import random

import pytest

from services.text.protected import (
    QUOTE_REACH,
    TERMINAL,
    positions,
    protected_intervals,
)


def _short_on_one_line(text: str, open_: int, close: int) -> bool:
    return close - open_ <= QUOTE_REACH and "\n" not in text[open_:close]


def _reference_pairs(text: str) -> list[tuple[int, int]]:
    """Brackets: each closer pairs with the latest opener not paired yet, if no closer came
    between, kept when terminal punctuation is inside; straight double quotes: consecutive
    pairs, a quote that cannot close opening the next. Pairs too long or across lines are
    dropped (single quotes are left out: the module still walks them the plain way)."""
    intervals = []
    for opener, closer in (("(", ")"), ("[", "]"), ("“", "”")):
        pending = -1
        for position in sorted(positions(text, opener) + positions(text, closer)):
            if text[position] == opener:
                pending = position
            elif pending >= 0:
                inner = text[pending + 1 : position]
                if _short_on_one_line(text, pending, position) and any(
                    mark in inner for mark in TERMINAL
                ):
                    intervals.append((pending, position))
                pending = -1
    pending = -1
    for position in positions(text, '"'):
        if pending >= 0 and _short_on_one_line(text, pending, position):
            intervals.append((pending, position))
            pending = -1
        else:
            pending = position
    return sorted(intervals)


@pytest.mark.parametrize("seed", range(4))
def test_pairs_match_the_event_walk(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ["(", ")", "[", "]", "“", "”", '"', "\n", "a", " b ", "x" * 150, ".", "?", "…"]
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 20)))
        assert protected_intervals(text) == _reference_pairs(text), text


def test_single_quotations_open_after_a_blank() -> None:
    text = "He said 'fine.' and they'll go (see 'x.')."
    assert protected_intervals(text) == [(8, 14), (31, 40), (36, 39)]


def test_positions_of_several_characters_are_sorted() -> None:
    rng = random.Random(3)
    for _ in range(500):
        text = "".join(rng.choice("ab.!?\n\r…") for _ in range(rng.randint(0, 40)))
        assert positions(text, ".!?…\n\r") == [i for i, c in enumerate(text) if c in ".!?…\n\r"]
