"""Code-point to UTF-16 offset conversion for JavaScript frontends."""

from __future__ import annotations

import re
from bisect import bisect_left

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Utf16Index:
    """Maps code-point offsets of one text to UTF-16 code-unit offsets.

    Only characters outside the Basic Multilingual Plane take two UTF-16 units, so the
    map is the offset plus the number of such characters before it.
    """

    __slots__ = ("_astral",)

    def __init__(self, text: str) -> None:
        self._astral: list[int] = (
            [] if text.isascii() else [m.start() for m in _ASTRAL.finditer(text)]
        )

    def __call__(self, offset: int) -> int:
        """The UTF-16 offset of code-point `offset`."""
        if not self._astral:
            return offset
        return offset + bisect_left(self._astral, offset)
