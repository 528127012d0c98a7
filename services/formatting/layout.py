"""Where the renderers put things: marker ranges (clusters with their citations) and
unit ranges over the answer text, computed once per answer and shared by every rendering."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from schemas.citations import Citation, Cluster
from schemas.formatted import FormattedSource
from schemas.spans import AnswerUnit


@dataclass(slots=True)
class MarkerRange:
    """A stretch of answer text that is citation markup, and the citations it holds."""

    start: int
    end: int
    citations: list[Citation]


@dataclass(slots=True)
class UnitRange:
    """An answer unit placed on the text; `clickable` only for verbatim units with spans."""

    start: int
    end: int
    unit: AnswerUnit
    clickable: bool


@dataclass(frozen=True, slots=True)
class AnswerLayout:
    """Everything a renderer needs, with per-source data looked up once; `cited` lists
    the sources that linked citations cite, in index order."""

    answer_id: str
    text: str
    markers: list[MarkerRange]
    units: list[UnitRange]
    sources: dict[int, FormattedSource]
    cited: list[int]


_Placed = TypeVar("_Placed", MarkerRange, UnitRange)


def is_linkable(citation: Citation, sources: dict[int, FormattedSource]) -> bool:
    """A citation is shown as a link only when it is valid and its source exists."""
    return citation.valid and citation.source_index in sources


def marker_ranges(
    length: int, citations: Sequence[Citation], clusters: Sequence[Cluster]
) -> list[MarkerRange]:
    """One range per cluster holding the citations inside it, one per citation outside
    any cluster; ranges outside the text or overlapping an earlier range are dropped."""
    cites = [c for c in citations if 0 <= c.start < c.end <= length]
    spans = [c for c in clusters if 0 <= c.start < c.end <= length]
    if not _in_order(cites):
        cites.sort(key=_start)
    if not _in_order(spans):
        spans.sort(key=_start)
    found: list[MarkerRange] = []
    position = 0
    count = len(cites)
    for cluster in spans:
        cluster_start, cluster_end = cluster.start, cluster.end
        while position < count and cites[position].start < cluster_start:
            citation = cites[position]
            found.append(MarkerRange(citation.start, citation.end, [citation]))
            position += 1
        members: list[Citation] = []
        while position < count and cites[position].end <= cluster_end:
            members.append(cites[position])
            position += 1
        if members:
            found.append(MarkerRange(cluster_start, cluster_end, members))
    for citation in cites[position:]:
        found.append(MarkerRange(citation.start, citation.end, [citation]))
    if not _in_order(found):
        found.sort(key=_start)
    return _without_overlaps(found)


def unit_ranges(
    length: int, units: Sequence[AnswerUnit], markers: Sequence[MarkerRange]
) -> list[UnitRange]:
    """Units placed on the text, never cutting through a marker (a unit starting inside
    one starts after it, a unit ending inside one takes it in) and never overlapping."""
    starts = [marker.start for marker in markers]
    ends = [marker.end for marker in markers]
    placed: list[UnitRange] = []
    for unit in units:
        start, end = unit.start, unit.end
        if start is None or end is None:
            continue
        start = max(start, 0)
        end = min(end, length)
        # a boundary strictly inside marker k (starts[k] < offset < ends[k]) moves to ends[k]
        k = bisect_left(starts, start)
        if k and start < ends[k - 1]:
            start = ends[k - 1]
        k = bisect_left(starts, end)
        if k and end < ends[k - 1]:
            end = ends[k - 1]
        if start < end:
            clickable = unit.kind == "verbatim" and bool(unit.source_spans)
            placed.append(UnitRange(start, end, unit, clickable))
    if not _in_order(placed):
        placed.sort(key=_start)
    return _without_overlaps(placed)


def _in_order(items: Sequence[Citation | Cluster | MarkerRange | UnitRange]) -> bool:
    previous = -1
    for item in items:
        if item.start < previous:
            return False
        previous = item.start
    return True


def _without_overlaps(items: list[_Placed]) -> list[_Placed]:
    kept: list[_Placed] = []
    last_end = 0
    for item in items:
        if item.start >= last_end:
            kept.append(item)
            last_end = item.end
    return kept


def _start(item: Citation | Cluster | MarkerRange | UnitRange) -> int:
    return item.start
