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
        # The last offset converted: segments come in text order, so each conversion
        # decodes only the bytes since the previous one.
        self._byte = 0
        self._code_point = 0

    def code_point(self, offset: int) -> int | None:
        """The code point offset of byte `offset`; None when it is past the end or inside a
        character's bytes (not a boundary)."""
        if self.ascii:
            return offset if 0 <= offset <= len(self.text) else None
        if not 0 <= offset <= len(self.encoded):
            return None
        start, known = (self._byte, self._code_point) if offset >= self._byte else (0, 0)
        try:
            found = known + len(self.encoded[start:offset].decode("utf-8"))
        except UnicodeDecodeError:
            return None  # `offset` cuts a character (the one remembered never does)
        self._byte, self._code_point = offset, found
        return found
