"""Markdown regions where nothing is a citation and no sentence ends: code."""

from __future__ import annotations

import re
from bisect import bisect_right

# A fenced block runs from an opening fence line to the same fence (or to the end of text).
_FENCED = re.compile(
    r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}(?P=fence)[ \t]*$|\Z)",
    re.MULTILINE | re.DOTALL,
)
# An inline code span: a run of backticks closed by a run of the same length.
_INLINE = re.compile(r"(?<!`)(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)", re.DOTALL)


def code_regions(text: str) -> list[tuple[int, int]]:
    """Sorted, non-overlapping `(start, end)` spans of fenced code blocks and inline code."""
    if "`" not in text and "~~~" not in text:
        return []
    regions = [(m.start(), m.end()) for m in _FENCED.finditer(text)]
    fenced = list(regions)
    for match in _INLINE.finditer(text):
        if not inside(fenced, match.start()):
            regions.append((match.start(), match.end()))
    regions.sort()
    return regions


def fenced_blocks(text: str) -> list[tuple[int, int]]:
    """Sorted `(start, end)` spans of fenced code blocks only."""
    if "```" not in text and "~~~" not in text:
        return []
    return [(m.start(), m.end()) for m in _FENCED.finditer(text)]


def inside(regions: list[tuple[int, int]], position: int) -> bool:
    """Whether `position` falls inside one of the sorted, non-overlapping `regions`."""
    if not regions:
        return False
    i = bisect_right(regions, (position, float("inf"))) - 1
    return i >= 0 and regions[i][0] <= position < regions[i][1]
