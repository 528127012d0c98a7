"""The rarer marker styles, kept off the common `[N]` path: full-width `［1］`,
HTML `<sup>1</sup>` / `<sup>[1]</sup>`, Unicode superscript digits (`level.¹`, `¹˒²`, `¹⁻³`),
OpenAI file-search markers (`【4:0†source】`, `【1†source】`) and OpenAI's citation tokens
(its citation-formatting guide): private-use characters around source ids,
`\ue200cite\ue202turn0file0\ue201`, several ids `\ue200cite\ue202turn0search0\ue202turn1news2\ue201`,
a line range last `\ue200cite\ue202turn0file0\ue202L8-L13\ue201`.

`has_rare_start` is the cheap test: only a text holding one of their first characters is
scanned with `RARE_MARKER`. Superscripts and `<sup>` are markers only where they cannot be exponents
(`x²`, `10³`, `mc²`, `(a+b)²` stay text): see `is_exponent`.
"""

from __future__ import annotations

import re

from services.text import scripts

# OpenAI's citation token delimiters (private-use characters).
CITE_START, CITE_SEPARATOR, CITE_STOP = "\ue200", "\ue202", "\ue201"
SUPERSCRIPTS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"  # ⁰¹²³⁴⁵⁶⁷⁸⁹
_SUP = f"[{SUPERSCRIPTS}]"
# Superscript digits to ASCII, and the superscript separators to `,` (list) or `-` (range).
SUPERSCRIPT_TABLE = str.maketrans(
    {**{c: str(d) for d, c in enumerate(SUPERSCRIPTS)}, "\u02d2": ",", "\u2e34": ",",
     "\u207b": "-"}
)
_WIDE_BLANK = "[ \u3000]*"
_WIDE_ITEM = rf"\d+(?:{_WIDE_BLANK}[-–]{_WIDE_BLANK}\d+)?"
# What a text using a rarer style holds. Superscript citations start at ¹, so a text citing
# with superscripts holds ¹, ² or ³: the scans for ⁰ and ⁴-⁹ (whose low bytes are common
# letters, which makes CPython's memchr search for them slow) are left out.
_LINES = r"L\d+(?:-L\d+)?"  # a line range of the cited material, `L8` or `L8-L13`
_RARE_STARTS = "【［<\u00b9\u00b2\u00b3" + CITE_START
RARE_MARKER = re.compile(
    # `【4:0†source】`: message and search-result numbers, then the file's label.
    r"【(?P<oai>\d+)(?::\d+)?†[^】\n]{0,200}】"
    # OpenAI's citation token: `cite`, then source ids (and a line range), each after U+E202.
    rf"|{CITE_START}cite(?P<ids>(?:{CITE_SEPARATOR}(?!{_LINES}{CITE_STOP})[A-Za-z0-9_-]{{1,100}})"
    rf"{{1,20}})(?:{CITE_SEPARATOR}(?P<lines>{_LINES}))?{CITE_STOP}"
    rf"|［{_WIDE_BLANK}(?P<wide>{_WIDE_ITEM}(?:{_WIDE_BLANK}[,，;；、]{_WIDE_BLANK}{_WIDE_ITEM})*)"
    rf"{_WIDE_BLANK}］"
    r"|(?i:<sup>)[ ]*(?P<sup>\[?[ ]*\d+(?:[ ]*[-–][ ]*\d+)?"
    r"(?:[ ]*(?:\]?[ ]*[,;][ ]*\[?|\]\[)[ ]*\d+(?:[ ]*[-–][ ]*\d+)?)*[ ]*\]?)[ ]*(?i:</sup>)"
    rf"|(?P<super>{_SUP}+(?:[\u02d2\u2e34,\u207b]{_SUP}+)*)"
)
_OPERATORS = "=+-*/^<>±×÷"
_SHORTEST_WORD = 3  # a superscript after a shorter word (`x²`, `m²`, `mc²`) is an exponent
# Scripts whose letters name variables and units (`x²`, `m²`, `см²`, `π²`).
_SYMBOL_SCRIPTS = frozenset({scripts.LATIN, scripts.GREEK, scripts.CYRILLIC})


def has_rare_start(text: str, plain: bool = False) -> bool:
    """Whether a rarer style may be in `text` (see `_RARE_STARTS`). Only `<` is ASCII, and
    none is a common separator: when the text is ASCII, or `plain` says it folds to ASCII
    (services.text.separators.fold_punctuation), `<` is the only one to look for. Each `in`
    is a C-level scan (a regex character class over the text costs several times more)."""
    if plain or text.isascii():
        return "<" in text
    for char in _RARE_STARTS:
        if char in text:
            return True
    return False


def is_exponent(text: str, start: int, end: int) -> bool:
    """Whether the superscript at `[start, end)` reads as an exponent, not a citation: it
    follows a digit, a short word or a formula, or a letter or digit follows it."""
    if start == 0 or text[end : end + 1].isalnum():
        return start != 0
    before = text[start - 1]
    if before.isdigit():
        return True
    if before == ")":
        opening = text.rfind("(", max(0, start - 40), start)
        inner = text[opening + 1 : start - 1] if opening != -1 else ""
        return len(inner) <= 2 or any(c in _OPERATORS for c in inner)
    if not before.isalpha():
        return False  # after punctuation or a quote: `level.¹`, `“…”²`
    word_start = start - 1
    while word_start > 0 and text[word_start - 1].isalpha():
        word_start -= 1
    if start - word_start < _SHORTEST_WORD and _is_symbol(text, word_start, start):
        return True
    # A formula just before the word: `area = length²`.
    return any(c in _OPERATORS for c in text[max(0, word_start - 12) : word_start])


def _is_symbol(text: str, word_start: int, end: int) -> bool:
    """Whether the short word `text[word_start:end]` reads as a variable or a unit: written
    in the letters of `_SYMBOL_SCRIPTS`, or right after a number (`12 m²`, `١٠٠ كم²`). A
    short word of another script is a word (`ہے¹۔`: the Urdu `is`, then a citation)."""
    if scripts.char_class(text[end - 1]) in _SYMBOL_SCRIPTS:
        return True
    before = text[max(0, word_start - 3) : word_start].rstrip()
    return before[-1:].isdigit()
