"""Answer text without its citation markers (as found by the citations stage)."""

from __future__ import annotations

import re

from schemas.citations import CitationExtraction

_SPACE_BEFORE_PUNCT = re.compile(r"\s+(?=[.,;:!?)\]])")
_SPACES = re.compile(r"\s{2,}")


class MarkerStripper:
    """Removes the citation markers of one answer from any range of its text."""

    def __init__(self, text: str, extraction: CitationExtraction) -> None:
        ranges = [(c.start, c.end) for c in extraction.clusters]
        ranges += [(c.start, c.end) for c in extraction.citations]
        self._text = text
        self._ranges = sorted(r for r in ranges if 0 <= r[0] < r[1] <= len(text))

    def strip(self, start: int, end: int) -> str:
        """`text[start:end]` without markers, with the spaces they leave tidied."""
        parts: list[str] = []
        position = start
        for marker_start, marker_end in self._ranges:
            if marker_end <= position or marker_start >= end:
                continue
            parts.append(self._text[position:marker_start])
            position = max(position, marker_end)
        parts.append(self._text[position:end])
        cleaned = "".join(parts)
        if len(parts) > 1:
            cleaned = _SPACES.sub(" ", _SPACE_BEFORE_PUNCT.sub("", cleaned))
        return cleaned.strip()
