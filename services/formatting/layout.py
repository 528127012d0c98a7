"""Where the renderers put things: marker ranges (clusters with their citations) and
unit ranges over the answer text, computed once per answer and shared by every rendering."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from schemas.citations import Citation, Cluster
from schemas.formatted import FormattedSource
from schemas.spans import AnswerUnit


@dataclass(frozen=True, slots=True)
class MarkerRange:
    """A stretch of answer text that is citation markup, and the citations it holds."""

    start: int
    end: int
    citations: tuple[Citation, ...]


@dataclass(frozen=True, slots=True)
class UnitRange:
    """An answer unit placed on the text; `clickable` only for verbatim units with spans."""

    start: int
    end: int
    unit: AnswerUnit
    clickable: bool


@dataclass(frozen=True, slots=True)
class AnswerLayout:
    """Everything a renderer needs, with per-source data looked up once."""

    answer_id: str
    text: str
    markers: list[MarkerRange]
    units: list[UnitRange]
    sources: dict[int, FormattedSource]
    cited: list[int]


def is_linkable(citation: Citation, sources: dict[int, FormattedSource]) -> bool:
    """A citation is shown as a link only when it is valid and its source exists."""
    return citation.valid and citation.source_index in sources


def marker_ranges(
    length: int, citations: Sequence[Citation], clusters: Sequence[Cluster]
) -> list[MarkerRange]:
    """One range per cluster holding the citations inside it, one per citation outside
    any cluster; ranges outside the text or overlapping an earlier range are dropped."""
    cites = sorted((c for c in citations if 0 <= c.start < c.end <= length), key=_start)
    spans = sorted((c for c in clusters if 0 <= c.start < c.end <= length), key=_start)
    found: list[MarkerRange] = []
    position = 0
    for cluster in spans:
        while position < len(cites) and cites[position].start < cluster.start:
            found.append(_single(cites[position]))
            position += 1
        members: list[Citation] = []
        while position < len(cites) and cites[position].end <= cluster.end:
            members.append(cites[position])
            position += 1
        if members:
            found.append(MarkerRange(cluster.start, cluster.end, tuple(members)))
    found.extend(_single(citation) for citation in cites[position:])
    found.sort(key=_start)
    kept: list[MarkerRange] = []
    last_end = 0
    for marker in found:
        if marker.start >= last_end:
            kept.append(marker)
            last_end = marker.end
    return kept


def unit_ranges(
    length: int, units: Sequence[AnswerUnit], markers: Sequence[MarkerRange]
) -> list[UnitRange]:
    """Units placed on the text, never cutting through a marker (a unit starting inside
    one starts after it, a unit ending inside one takes it in) and never overlapping."""
    starts = [marker.start for marker in markers]
    placed: list[UnitRange] = []
    for unit in units:
        if unit.start is None or unit.end is None:
            continue
        start = _outside(max(unit.start, 0), markers, starts)
        end = _outside(min(unit.end, length), markers, starts)
        if start < end:
            clickable = unit.kind == "verbatim" and bool(unit.source_spans)
            placed.append(UnitRange(start, end, unit, clickable))
    placed.sort(key=_start)
    kept: list[UnitRange] = []
    last_end = 0
    for unit_range in placed:
        if unit_range.start >= last_end:
            kept.append(unit_range)
            last_end = unit_range.end
    return kept


def _outside(offset: int, markers: Sequence[MarkerRange], starts: list[int]) -> int:
    """`offset`, moved to the end of the marker it falls strictly inside, if any."""
    position = bisect_right(starts, offset) - 1
    if position >= 0 and markers[position].start < offset < markers[position].end:
        return markers[position].end
    return offset


def _single(citation: Citation) -> MarkerRange:
    return MarkerRange(citation.start, citation.end, (citation,))


def _start(item: Citation | Cluster | MarkerRange | UnitRange) -> int:
    return item.start
