"""Whitespace checks and cut ends of text that is shown (excerpts, references)."""

from __future__ import annotations

from services.text.protected import TERMINAL

# ASCII whitespace other than the space (what `str.split` splits on), each mapped to NUL:
# an ASCII text translated through this table is unchanged exactly when it has none.
_ASCII_BREAKS = bytes.maketrans(b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f", bytes(9))
# What may follow a sentence's full stop and still end it: closing quotes and brackets.
_CLOSERS = "\"'\u2019\u201d\u00bb\u203a)]\u300d\u300f\u300b\uff09"


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
