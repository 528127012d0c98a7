"""Clean-up of PyMuPDF page text: ligatures, soft hyphens, line-end hyphenation.

Text is extracted without TEXT_PRESERVE_LIGATURES, so MuPDF already expands ligature
glyphs; the translate table catches ligature code points that come straight from a
font's ToUnicode map and removes soft hyphens. TEXT_DEHYPHENATE is not used: it joins
every line-end hyphen, real ones too (`Trace-`/`Monkey`).
"""

from __future__ import annotations

import re

import pymupdf

TEXT_FLAGS = (
    pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE
)
LIGATURES = {
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
    "\ufb05": "st", "\ufb06": "st",
}
_TRANSLATE = str.maketrans({**LIGATURES, "\u00ad": None})
# A hyphen (or soft hyphen) after a letter, at the end of a line, before a word.
_LINE_END_HYPHEN = re.compile(r"([-\u2010\u00ad])(?<=[^\W\d_].)[ \t]*\n[ \t]*(?=\w)")
_WORD_BEFORE = re.compile(r"[\w\-\u2010]*$")
_WORD_AFTER = re.compile(r"\w+")


def _join_hyphenated(text: str) -> str:
    """Join words split across lines; real hyphens stay (without the line break).

    A hyphen is a line-end split when the next line goes on in lower case and the word
    before is not itself a compound; it is real before a capital or a digit (`Trace-`/
    `Monkey`, `IEEE-754`), in compounds (`stop-the-world`), and when the page also has
    the hyphenated form on one line. Soft hyphens always join.
    """
    pieces: list[str] = []
    last = 0
    for match in _LINE_END_HYPHEN.finditer(text):
        hyphen = match.group(1)
        start = match.start()
        following = _WORD_AFTER.match(text, match.end())
        after = following.group() if following else ""
        join = hyphen == "\u00ad"
        if not join and after[:1].islower():
            before = _WORD_BEFORE.search(text, max(0, start - 64), start).group()
            join = "-" not in before and f"{before}-{after}" not in text
        pieces.append(text[last:start])
        if not join:
            pieces.append(hyphen)
        last = match.end()
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def clean_page_text(text: str) -> str:
    """Page text with ligatures expanded, hyphenation joined, soft hyphens removed."""
    text = _join_hyphenated(text)
    if not text.isascii():
        text = text.translate(_TRANSLATE)
    return text.strip()
