"""Provider offsets to code points (Python string indexes, what citeflow uses everywhere).

Gemini / Vertex AI grounding segments count UTF-8 bytes; other providers count characters.
Reading a byte offset as a character index is the bug that gives wrong highlights on any
text with accents, CJK or emoji before the cited segment.
"""

from __future__ import annotations


class ByteOffsets:
    """UTF-8 byte offsets of one text to code point offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.encoded = text.encode("utf-8")
        self.ascii = len(self.encoded) == len(text)

    def code_point(self, offset: int) -> int | None:
        """The code point offset of byte `offset`; None when it is past the end or inside a
        character's bytes (not a boundary)."""
        if self.ascii:
            return offset if 0 <= offset <= len(self.text) else None
        if not 0 <= offset <= len(self.encoded):
            return None
        try:
            return len(self.encoded[:offset].decode("utf-8"))
        except UnicodeDecodeError:
            return None
