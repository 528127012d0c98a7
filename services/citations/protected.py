"""Quotations, parentheses and brackets whose inner punctuation does not end a sentence."""

from __future__ import annotations

import re

# Quotations and brackets: innermost pairs on one line.
_PAIRS = (("(", ")"), ("[", "]"), ("“", "”"))
# Single quotations: the opening quote (after a blank or bracket) and what closes it, a quote
# not followed by a letter (apostrophes inside words, `they'll`, are not closers).
_SINGLE_QUOTES = (
    ("'", re.compile(r"'(?!\w)")),
    ("‘", re.compile(r"’(?!\w)")),
)
QUOTE_REACH = 400  # longest protected span
_OPENS_QUOTE = " \t\n\r([\u00a0"


def positions(text: str, char: str) -> list[int]:
    """Every position of `char` in `text`."""
    found: list[int] = []
    find = text.find
    i = find(char)
    while i != -1:
        found.append(i)
        i = find(char, i + 1)
    return found


def protected_intervals(text: str) -> list[tuple[int, int]]:
    """Sorted `(open, close)` of quotations, parentheses and brackets on one line and at most
    `QUOTE_REACH` long (`close` is the closing character): innermost pairs for brackets,
    consecutive pairs for straight double quotes, and single quotations that open after a
    space or bracket."""
    intervals: list[tuple[int, int]] = []
    for opener, closer in _PAIRS:
        if opener not in text:
            continue
        events = sorted(positions(text, opener) + positions(text, closer))
        pending = -1
        for position in events:
            if text[position] == opener:
                pending = position
            elif pending >= 0:
                _add_interval(text, intervals, pending, position)
                pending = -1
    if '"' in text:
        pending = -1
        for position in positions(text, '"'):
            if pending >= 0 and _add_interval(text, intervals, pending, position):
                pending = -1
            else:
                pending = position
    for quote, closing in _SINGLE_QUOTES:
        if quote not in text:
            continue
        reached = 0
        for position in positions(text, quote):
            if position < reached or (position and text[position - 1] not in _OPENS_QUOTE):
                continue
            match = closing.search(text, position + 2, position + QUOTE_REACH + 1)
            if match and _add_interval(text, intervals, position, match.start()):
                reached = match.end()
    intervals.sort()
    return intervals


def _add_interval(text: str, intervals: list[tuple[int, int]], open_: int, close: int) -> bool:
    """Record `(open_, close)` when it is short and on one line; whether it was recorded."""
    if close - open_ > QUOTE_REACH or text.find("\n", open_, close) != -1:
        return False
    intervals.append((open_, close))
    return True
