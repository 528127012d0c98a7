"""Whitespace checks on text that is shown (excerpts, references)."""

from __future__ import annotations

# ASCII whitespace other than the space (what `str.split` splits on), each mapped to NUL:
# an ASCII text translated through this table is unchanged exactly when it has none.
_ASCII_BREAKS = bytes.maketrans(b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f", bytes(9))


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
