"""Where the renderers put things: the citation markers (with the citations each holds),
the answer units and the text between the markers, computed once per answer and shared
by every rendering. The layout classes are plain slotted dataclasses, not frozen ones
(a frozen one's `__init__` sets each field through `object.__setattr__`, a costly call
here); nothing changes them after construction.

The citations, clusters and units are read as their field tables (`rows`: the JSON
objects of a record rebuilt lazily, or the models' `__dict__`), their fields gathered with
`map` and `itemgetter`: the C-level loops cost a fraction of Python loops over 50 items.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter, le, lt
from typing import TypeVar

from schemas.formatted import FormattedSource
from schemas.rows import Row

CitationKey = tuple[int, int | None, bool, str | None]
"""All a rendering shows of a citation: its id, source index, validity and problem."""

_START = itemgetter("start")
_END = itemgetter("end")
_KEY = itemgetter("id", "source_index", "valid", "problem")
_first = itemgetter(0)


@dataclass(slots=True)
class Markers:
    """The citation markers in text order, as parallel lists: where each starts and
    ends, and the keys of the citations it holds (a cluster's, or one lone citation)."""

    starts: list[int]
    ends: list[int]
    groups: list[tuple[CitationKey, ...]]


@dataclass(slots=True)
class Units:
    """The answer units placed on the text, in order: `bounds` holds the start and the
    end of each (two entries per unit), `units` their field tables (`rows`)."""

    bounds: list[int]
    units: list[Row]


@dataclass(slots=True)
class AnswerLayout:
    """Everything a renderer needs: `pieces` is the text around the markers (one more
    than the markers), `clean` tells that the text holds no NUL or control character
    (`escaping.has_controls`), `cited` lists the sources that linked citations
    cite, in index order, and `missing` the answer's unsupported words each rendering
    named in `marked` marks (`services.formatting.missing`: in order, none cut by a
    marker or a unit boundary)."""

    answer_id: str
    text: str
    clean: bool
    markers: Markers
    pieces: list[str]
    units: Units
    sources: dict[int, FormattedSource]
    cited: list[int]
    language: str = "und"  # the answer's (services.text.languages.describe)
    direction: str = "ltr"
    missing: list[tuple[int, int]] = field(default_factory=list)
    marked: frozenset[str] = frozenset()


_Placed = TypeVar("_Placed", bound=tuple)


def is_linkable(key: CitationKey, sources: dict[int, FormattedSource]) -> bool:
    """A citation is shown as a link only when it is valid and its source exists."""
    return key[2] and key[1] in sources


def text_pieces(text: str, markers: Markers) -> list[str]:
    """The text before, between and after the markers."""
    return cut(text, markers.starts, markers.ends)


def cut(text: str, starts: list[int], ends: list[int]) -> list[str]:
    """The text before, between and after the ranges `[starts[k], ends[k])` (in order).

    A comprehension of slices: mapping `text.__getitem__` over `slice` objects calls two
    types without a fast call path (about 1,600 instructions a piece against 450 compiled,
    1,050 interpreted)."""
    return [text[start:end] for start, end in zip([0, *ends], [*starts, len(text)])]


def marker_ranges(length: int, citations: Sequence[Row], clusters: Sequence[Row]) -> Markers:
    """One marker per cluster holding the citations inside it, one per citation outside
    any cluster; markers outside the text or overlapping an earlier one are dropped
    (`citations`, `clusters`: the extraction's `rows`)."""
    starts = list(map(_START, citations))
    ends = list(map(_END, citations))
    keys = list(map(_KEY, citations))
    if (
        starts == list(map(_START, clusters))
        and ends == list(map(_END, clusters))
        and _disjoint(starts, ends, length)
    ):
        # The usual shape, every cluster one citation: each citation is a marker.
        return Markers(starts, ends, list(zip(keys)))
    cites = [
        (start, end, key)
        for start, end, key in zip(starts, ends, keys)
        if 0 <= start <= end <= length  # zero-width: a span citation's chip
    ]
    spans = [
        (start, end)
        for start, end in zip(map(_START, clusters), map(_END, clusters))
        if 0 <= start <= end <= length  # zero-width: a span citation's chip
    ]
    # stable sorts by start (no-ops when in order)
    cites.sort(key=_first)
    spans.sort(key=_first)
    found: list[tuple[int, int, tuple[CitationKey, ...]]] = []
    position = 0
    count = len(cites)
    for cluster_start, cluster_end in spans:
        while position < count and cites[position][0] < cluster_start:
            start, end, key = cites[position]
            found.append((start, end, (key,)))
            position += 1
        members: list[CitationKey] = []
        while position < count and cites[position][1] <= cluster_end:
            members.append(cites[position][2])
            position += 1
        if members:
            found.append((cluster_start, cluster_end, tuple(members)))
    found.extend((start, end, (key,)) for start, end, key in cites[position:])
    found.sort(key=_first)
    kept = _without_overlaps(found)
    return Markers(
        [item[0] for item in kept],
        [item[1] for item in kept],
        [item[2] for item in kept],
    )


def unit_ranges(length: int, units: list[Row], markers: Markers) -> Units:
    """Units (their `rows`) placed on the text, never cutting through a marker (a unit
    starting inside one starts after it, a unit ending inside one takes it in) and never
    overlapping."""
    bounds = list(chain.from_iterable(zip(map(_START, units), map(_END, units))))
    if (
        None not in bounds
        and _disjoint(bounds[0::2], bounds[1::2], length)
        and not _inside_markers(bounds, markers)
    ):
        # The usual shape, units in order and clear of markers: every unit as it is.
        return Units(bounds, units)
    starts = markers.starts
    ends = markers.ends
    placed: list[tuple[int, int, Row]] = []
    for unit in units:
        start, end = unit["start"], unit["end"]
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
            placed.append((start, end, unit))
    placed.sort(key=_first)
    kept = _without_overlaps(placed)
    return Units([p for item in kept for p in item[:2]], [item[2] for item in kept])


def _inside_markers(offsets: list[int], markers: Markers) -> bool:
    """Whether any offset (none negative, in ascending order) falls strictly inside a
    marker (markers in text order)."""
    # One walk over both sorted lists: a bisection per offset costs more, compiled or not.
    starts, ends = markers.starts, markers.ends
    count = len(starts)
    before = 0  # the markers starting before the offset
    for offset in offsets:
        while before < count and starts[before] < offset:
            before += 1
        if before and ends[before - 1] > offset:
            return True
    return False


def _disjoint(starts: list[int], ends: list[int], length: int) -> bool:
    """Whether the ranges are non-empty, inside `length`, in order and disjoint."""
    return not starts or (
        starts[0] >= 0
        and ends[-1] <= length
        and all(map(lt, starts, ends))
        and all(map(le, ends, starts[1:]))
    )


def _without_overlaps(items: list[_Placed]) -> list[_Placed]:
    """The ranges (start, end, ...) that do not overlap an earlier kept one."""
    kept: list[_Placed] = []
    last_end = 0
    for item in items:
        if item[0] >= last_end:
            kept.append(item)
            last_end = item[1]
    return kept
