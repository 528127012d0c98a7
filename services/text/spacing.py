"""Whitespace checks, excerpts and cut ends of text that is shown (sources, links,
references)."""

from __future__ import annotations

from services.text.protected import TERMINAL

# ASCII whitespace other than the space (what `str.split` splits on), each mapped to NUL:
# an ASCII text translated through this table is unchanged exactly when it has none.
_ASCII_BREAKS = bytes.maketrans(b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f", bytes(9))
# What may follow a sentence's full stop and still end it: closing quotes and brackets.
_CLOSERS = "\"'\u2019\u201d\u00bb\u203a)]\u300d\u300f\u300b\uff09"
EXCERPT_CHARS = 200
# An excerpt is cut at the last space before its limit unless that loses more than this.
_EXCERPT_SLACK = 50


def single_spaced(text: str) -> bool:
    """Whether `text` has no whitespace but single spaces between words (`" ".join(
    text.split())` would give it back)."""
    if text.isascii():
        encoded = text.encode("ascii")
        plain = encoded.translate(_ASCII_BREAKS) == encoded
    else:
        # Printable text has no whitespace but the plain space.
        plain = text.isprintable()
    return plain and "  " not in text and text == text.strip()


def cut_short(text: str) -> str:
    """`text`, cut before its end, marked as cut: an ellipsis after it, unless it ends a
    sentence (`tall.`, `tall."`, `高。`: a full stop then an ellipsis reads as a defect,
    and a whole sentence needs no mark)."""
    ended = text.rstrip(_CLOSERS)
    return text if ended and ended[-1] in TERMINAL else text + "\u2026"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """About the first `limit` characters of `text`, whitespace collapsed, cut at a word
    boundary, marked as cut when shortened (`cut_short`)."""
    window = limit + _EXCERPT_SLACK
    head = text[:window]
    # a single-spaced head (the usual case) is what splitting and joining would give
    collapsed = head if single_spaced(head) else " ".join(head.split())
    while len(collapsed) <= limit and window < len(text):
        window *= 2  # whitespace runs collapsed: read further
        collapsed = " ".join(text[:window].split())
    if window >= len(text) and len(collapsed) <= limit:
        return collapsed
    cut = collapsed.rfind(" ", 0, limit + 1)
    if cut < limit - _EXCERPT_SLACK:
        cut = limit
    return cut_short(collapsed[:cut].rstrip())
