"""Clean-up of PyMuPDF page text: ligatures, soft hyphens, line-end hyphenation.

Text is read with TEXT_PRESERVE_LIGATURES (`READ_FLAGS`) and ligatures are expanded here:
MuPDF's own expansion writes a multi-letter glyph of a right-to-left line backwards (the
Arabic lam-khah ligature U+FCCB comes out as khah, lam: `اخلطوط` for `الخطوط`), while
NFKC of the glyph's code point gives its letters in logical order. Latin ligatures are
replaced from `LIGATURES`, Arabic presentation forms folded with NFKC, soft hyphens
removed. TEXT_DEHYPHENATE is not used: it joins
every line-end hyphen, real ones too (`Trace-`/`Monkey`). Everything is cheap C-level
string work (`in`, `replace`, a literal-prefix regex); Python runs only per line-end
hyphen, never per character of the page.
"""

from __future__ import annotations

import re
import unicodedata

import pymupdf

TEXT_FLAGS = (
    pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE
)
# Reading a page's text (ingest, the reader's placement): ligature glyphs kept, expanded here.
READ_FLAGS = TEXT_FLAGS | pymupdf.TEXT_PRESERVE_LIGATURES
LIGATURES = {
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
    "\ufb05": "st", "\ufb06": "st",
}
SOFT_HYPHEN = "\u00ad"
# Arabic Presentation Forms-A and -B (contextual shapes and ligatures of Arabic letters).
_PRESENTATION_FORMS = re.compile("[\ufb50-\ufdff\ufe70-\ufefc]+")
_LINE_END_HYPHEN = re.compile(r"-[ \t]*\n[ \t]*(?=\w)")
_SOFT_LINE_END = re.compile("\u00ad[ \t]*\n[ \t]*")
_WORD_AFTER = re.compile(r"\w+")
_LONGEST_WORD = 64


def _word_before(text: str, end: int) -> str:
    """The word (letters, digits, inner hyphens) that ends at `end`."""
    start = end
    floor = max(0, end - _LONGEST_WORD)
    while start > floor and (text[start - 1].isalnum() or text[start - 1] in "-_"):
        start -= 1
    return text[start:end]


def _join_hyphenated(text: str) -> str:
    """Join words split across lines; real hyphens stay (without the line break).

    A hyphen after a letter at the end of a line is a split when the next line goes on
    in lower case and the word before is not itself a compound; it is real before a
    capital or a digit (`Trace-`/`Monkey`, `IEEE-754`), in compounds (`stop-the-world`),
    and when the page also has the hyphenated form on one line.
    """
    pieces: list[str] = []
    last = 0
    for match in _LINE_END_HYPHEN.finditer(text):
        start = match.start()
        before = _word_before(text, start)
        if not before or not before[-1].isalpha():
            continue
        following = _WORD_AFTER.match(text, match.end())
        after = following.group() if following else ""
        join = after[:1].islower() and "-" not in before and f"{before}-{after}" not in text
        pieces.append(text[last:start])
        if not join:
            pieces.append("-")
        last = match.end()
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def expand_ligatures(text: str) -> str:
    """Latin ligatures replaced from `LIGATURES`, Arabic presentation forms (contextual
    shapes, lam-alef and other ligatures) folded with NFKC: letters in logical order."""
    if text.isascii():
        return text
    for ligature, letters in LIGATURES.items():
        if ligature in text:
            text = text.replace(ligature, letters)
    return _PRESENTATION_FORMS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)


def clean_page_text(text: str) -> str:
    """Page text (read with `READ_FLAGS`) with ligatures and presentation forms expanded,
    hyphenation joined, soft hyphens removed."""
    text = expand_ligatures(text)
    if "-" in text:
        text = _join_hyphenated(text)
    if not text.isascii() and SOFT_HYPHEN in text:
        text = _SOFT_LINE_END.sub("", text).replace(SOFT_HYPHEN, "")
    return text.strip()
