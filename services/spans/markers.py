"""Answer text without its citation markers (as found by the citations stage)."""

from __future__ import annotations

import re
from bisect import bisect_right

from schemas.citations import CitationExtraction
from schemas.rows import rows

_SPACE_BEFORE_PUNCT = re.compile(r"\s+(?=[.,;:!?)\]])")
_SPACES = re.compile(r"\s{2,}")


class MarkerStripper:
    """Removes the citation markers of one answer from any range of its text."""

    def __init__(self, text: str, extraction: CitationExtraction) -> None:
        ranges = [
            (marker["start"], marker["end"])
            for name in ("clusters", "citations")
            for marker in rows(extraction, name)
        ]
        merged: list[list[int]] = []
        for start, end in sorted(r for r in ranges if 0 <= r[0] < r[1] <= len(text)):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._text = text
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def strip(self, start: int, end: int) -> str:
        """`text[start:end]` without markers, with the spaces they leave tidied."""
        parts: list[str] = []
        position = start
        number = bisect_right(self._ends, start)
        while number < len(self._starts) and self._starts[number] < end:
            parts.append(self._text[position : max(position, self._starts[number])])
            position = max(position, self._ends[number])
            number += 1
        parts.append(self._text[position:end])
        cleaned = "".join(parts)
        if len(parts) > 1:
            cleaned = _SPACES.sub(" ", _SPACE_BEFORE_PUNCT.sub("", cleaned))
        return cleaned.strip()
