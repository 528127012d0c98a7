"""Quotations, parentheses and brackets whose inner punctuation does not end a sentence."""

from __future__ import annotations

import re
from re import Match

from services.text.separators import fold_punctuation

QUOTE_REACH = 400  # longest protected span
# Only a pair holding one of these can protect a sentence end (with the full stops of
# Chinese and Japanese, Devanagari, Arabic and Urdu, Armenian, Ethiopic and Burmese).
TERMINAL = ".!?…。！？．।॥۔؟։።፧။"
# Quotations and brackets: innermost pairs on one line, at most `QUOTE_REACH` apart. The
# innermost pair is an opener and the first closer after it with neither between them: one
# regex scan per kind finds them (and then the next pair starts after the closer, as it would
# after an opener without a pair), their length is checked after the scan. Pairs without
# terminal punctuation are rejected inside the scan (every citation marker `[1]` is one).
_PAIRS = [
    (
        opener,
        re.compile(
            rf"{lead}{re.escape(opener)}[^{escaped}\n{TERMINAL}]*+[{TERMINAL}][^{escaped}\n]*"
            rf"{re.escape(closer)}{trail}"
        ),
    )
    for opener, closer, lead, trail in (
        ("(", ")", "", ""), ("[", "]", "", ""), ("“", "”", "", ""),
        # quotations and titles of other languages: German and Slavic `„…“` / `„…”`,
        # guillemets (German and Danish `»…«` only as whole words: `«a», b. «c»` is no
        # pair), CJK corner brackets, title marks and full-width parentheses
        ("„", "“", "", ""), ("„", "”", "", ""), ("«", "»", "", ""),
        ("»", "«", r"(?<!\w)", r"(?!\w)"), ("‹", "›", "", ""),
        ("「", "」", "", ""), ("『", "』", "", ""), ("《", "》", "", ""), ("〈", "〉", "", ""),
        ("（", "）", "", ""),
    )
    for escaped in [re.escape(opener + closer)]
]
# Those a text that folds to ASCII can hold (its only other characters are common
# separators, services.text.separators): the others are not looked for in it.
_PLAIN_PAIRS = [pair for pair in _PAIRS if fold_punctuation(pair[0]).isascii()]
# Straight double quotes pair up consecutively; a quote that cannot close the pending one
# (too far, or on another line) opens the next pair.
_QUOTES = re.compile(rf'"[^"\n]{{0,{QUOTE_REACH - 1}}}"')
# Single quotations: the opening quote (after a blank or bracket) and what closes it, a quote
# not followed by a letter (apostrophes inside words, `they'll`, are not closers).
_SINGLE_QUOTES = (
    ("'", re.compile(r"'(?!\w)")),
    ("‘", re.compile(r"’(?!\w)")),
)
_OPENS_QUOTE = " \t\n\r([\u00a0"


def positions(text: str, chars: str) -> list[int]:
    """Sorted positions of every character of `chars` in `text`."""
    found: list[int] = []
    append = found.append
    find = text.find
    for char in chars:
        if char in text:  # cheaper than a `find` call that finds nothing
            i = find(char)
            while i != -1:
                append(i)
                i = find(char, i + 1)
    if len(chars) > 1:
        found.sort()
    return found


def protected_intervals(text: str, plain: bool = False) -> list[tuple[int, int]]:
    """Sorted `(open, close)` of quotations, parentheses and brackets on one line and at most
    `QUOTE_REACH` long (`close` is the closing character): innermost pairs for brackets (only
    those holding `TERMINAL` punctuation), consecutive pairs for straight double quotes, and
    single quotations that open after a space or bracket. `plain`: the text is known to fold
    to ASCII (services.text.separators.fold_punctuation)."""
    intervals = [
        (start, end - 1)
        for opener, pattern in (_PLAIN_PAIRS if plain else _PAIRS)
        if opener in text  # cheaper than a scan that finds nothing
        for start, end in map(Match.span, pattern.finditer(text))
        if end - start <= QUOTE_REACH + 1
    ]
    if '"' in text:
        intervals += [(match.start(), match.end() - 1) for match in _QUOTES.finditer(text)]
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
