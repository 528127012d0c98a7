"""Inline list items and bullets: a sentence boundary goes before each of them."""

from __future__ import annotations

import re

from services.text.separators import fold_punctuation

_BULLETS = "•⁃◦▪‣●"
# Those a text that folds to ASCII can hold (its only other characters are common
# separators, services.text.separators).
_PLAIN_BULLETS = [bullet for bullet in _BULLETS if fold_punctuation(bullet).isascii()]
_BULLET = re.compile(r"(?<!\S)[•⁃◦▪‣●]")
# Items of an inline list written `1. ... 2. ...` (only searched when a line starts with `1.`).
_DOT_ITEM = re.compile(r"(?<!\S)(?P<label>\d{1,2}|[a-z])\.(?=\s)")
_DOT_LIST_FIRST = re.compile(r"\n[ \t•⁃◦▪‣●]*[1a]\.\s")
_DOT_LIST_FIRST_AT_START = re.compile(r"[ \t•⁃◦▪‣●]*[1a]\.\s")
_LABEL_LEAD = " \t" + _BULLETS
_SPACE = " \t\r\n\f\v\u00a0\u2028\u2029"


def list_breaks(text: str, plain: bool = False) -> list[int]:
    """Positions before inline list items (a run `1) ... 2) ...`) and inline bullets.
    `plain`: the text is known to fold to ASCII (services.text.separators.fold_punctuation)."""
    breaks: list[int] = []
    if any(bullet in text for bullet in (_PLAIN_BULLETS if plain else _BULLETS)):
        breaks.extend(m.start() for m in _BULLET.finditer(text))
    items = _paren_items(text) if ")" in text else []
    # (a line break is found by `in` far faster than by the regex scan)
    if ("\n" in text and _DOT_LIST_FIRST.search(text)) or _DOT_LIST_FIRST_AT_START.match(
        text
    ):
        items.extend((m.start(), m.group("label"), ".") for m in _DOT_ITEM.finditer(text))
        items.sort()
    last: dict[tuple[str, bool], tuple[int, list[int]]] = {}
    for position, label, style in items:
        key = (style, label.isdigit())
        value = int(label) if label.isdigit() else ord(label) - 96
        if value == 1:
            if style != "." or _at_line_start(text, position):
                last[key] = (1, [position])
            continue
        chain = last.get(key)
        if chain is not None and chain[0] == value - 1:
            chain[1].append(position)
            last[key] = (value, chain[1])
            breaks.extend(chain[1] if value == 2 else (position,))
    breaks.sort()
    return breaks


def _at_line_start(text: str, position: int) -> bool:
    """Whether only blanks and bullets stand between the line start and `position`."""
    while position > 0 and text[position - 1] in _LABEL_LEAD:
        position -= 1
    return position == 0 or text[position - 1] == "\n"


def _paren_items(text: str) -> list[tuple[int, str, str]]:
    """`(position, label, style)` of every `1)`, `12)`, `a)` or `1.)` after whitespace."""
    items = []
    n = len(text)
    i = text.find(")")
    while i != -1:
        style_start = i - 1 if i and text[i - 1] == "." else i
        k = style_start
        while k > 0 and style_start - k < 2 and "0" <= text[k - 1] <= "9":
            k -= 1
        if k == style_start and k > 0 and "a" <= text[k - 1] <= "z":
            k -= 1
        if (
            k < style_start
            and (k == 0 or text[k - 1] in _SPACE)
            and (i + 1 == n or text[i + 1] in _SPACE)
            and not (text[k].isalpha() and style_start - k > 1)
        ):
            items.append((k, text[k:style_start], text[style_start : i + 1]))
        i = text.find(")", i + 1)
    return items
