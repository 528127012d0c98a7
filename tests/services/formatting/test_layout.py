"""The layout (marker and unit placement, text pieces) held to plain reference
implementations on random answers: every cluster one citation (the fast path), clusters
of several citations, lone citations, overlaps, out-of-order and out-of-range input."""

from __future__ import annotations

import random
from bisect import bisect_left

import pytest

from schemas.citations import Citation, Cluster
from schemas.spans import AnswerUnit
from services.formatting.layout import marker_ranges, text_pieces, unit_ranges

LENGTH = 400


def _reference_markers(
    length: int, citations: list[Citation], clusters: list[Cluster]
) -> list[tuple[int, int, list[Citation]]]:
    """Each cluster with the citations inside it, each other citation alone, in text
    order (an empty one is a span citation's chip), dropping ranges outside the text or
    overlapping an earlier one."""
    cites = sorted(
        (c for c in citations if 0 <= c.start <= c.end <= length), key=lambda c: c.start
    )
    spans = sorted(
        (c for c in clusters if 0 <= c.start <= c.end <= length), key=lambda c: c.start
    )
    found = []
    position = 0
    for cluster in spans:
        while position < len(cites) and cites[position].start < cluster.start:
            found.append(
                (cites[position].start, cites[position].end, [cites[position]])
            )
            position += 1
        members = []
        while position < len(cites) and cites[position].end <= cluster.end:
            members.append(cites[position])
            position += 1
        if members:
            found.append((cluster.start, cluster.end, members))
    found += [(c.start, c.end, [c]) for c in cites[position:]]
    return _without_overlaps(sorted(found, key=lambda item: item[0]))


def _reference_units(
    length: int, units: list[AnswerUnit], markers: list[tuple[int, int, list]]
) -> list[tuple[int, int, AnswerUnit]]:
    starts = [m[0] for m in markers]
    ends = [m[1] for m in markers]
    placed = []
    for unit in units:
        if unit.start is None or unit.end is None:
            continue
        start, end = max(unit.start, 0), min(unit.end, length)
        k = bisect_left(starts, start)
        if k and start < ends[k - 1]:
            start = ends[k - 1]
        k = bisect_left(starts, end)
        if k and end < ends[k - 1]:
            end = ends[k - 1]
        if start < end:
            placed.append((start, end, unit))
    return _without_overlaps(sorted(placed, key=lambda item: item[0]))


def _without_overlaps(items: list) -> list:
    kept, last_end = [], 0
    for item in items:
        if item[0] >= last_end:
            kept.append(item)
            last_end = item[1]
    return kept


def _span(start: int, end: int) -> dict[str, int]:
    return {"start": start, "end": end, "start_utf16": start, "end_utf16": end}


def _citation(rng: random.Random, start: int, end: int) -> Citation:
    index = rng.randint(1, 4)
    valid = rng.random() < 0.8
    return Citation.model_validate(
        {
            **_span(start, end),
            "id": index,
            "marker": f"[{index}]",
            "source_index": index if rng.random() < 0.9 else None,
            "valid": valid,
            "problem": None if valid else rng.choice(["bad", "worse"]),
        }
    )


def _cluster(start: int, end: int) -> Cluster:
    return Cluster.model_validate(
        {**_span(start, end), "marker": "", "citation_ids": []}
    )


def _answer(seed: int) -> tuple[list[Citation], list[Cluster], list[AnswerUnit]]:
    """Random markers; for even seeds, tidy (every cluster one citation, in order)."""
    rng = random.Random(seed)
    tidy = seed % 2 == 0
    citations, clusters = [], []
    position = rng.randint(0, 5)
    while position < LENGTH - 10:
        size = rng.randint(1, 3) if not tidy else 1
        start = position
        for _ in range(size):
            citations.append(_citation(rng, position, position + 3))
            position += 3 + (0 if tidy else rng.randint(0, 1))
        if tidy or rng.random() < 0.7:
            clusters.append(_cluster(start, position))
        position += rng.randint(0 if not tidy else 1, 30)
    if not tidy:
        for _ in range(rng.randint(0, 4)):  # strays: overlapping, empty, outside
            start = rng.randint(-5, LENGTH + 5)
            citations.insert(
                rng.randrange(len(citations) + 1),
                _citation(rng, start, start + rng.randint(-1, 6)),
            )
        if rng.random() < 0.3:
            rng.shuffle(clusters)
    units = []
    position = rng.randint(-3, 10)
    while position < LENGTH + 10:
        end = position + rng.randint(1 if tidy else -2, 40)
        start = None if rng.random() < 0.05 else position
        units.append(_unit(f"U{len(units)}", start, end, verbatim=rng.random() < 0.5))
        position = end + rng.randint(0 if tidy else -5, 10)
    if not tidy and rng.random() < 0.3:
        rng.shuffle(units)
    if seed % 4 == 0:  # units in order, each ending right after a marker
        units = [
            _unit(f"U{k}", start, end)
            for k, (start, end) in enumerate(
                zip([0, *(c.end for c in citations)], (c.end for c in citations))
            )
        ]
    return citations, clusters, units


def _unit(
    unit_id: str, start: int | None, end: int, *, verbatim: bool = False
) -> AnswerUnit:
    return AnswerUnit.model_validate(
        {
            "id": unit_id,
            "text": "",
            "kind": "verbatim" if verbatim else "derived",
            "start": start,
            "end": end,
        }
    )


def _rows(models: list) -> list[dict]:
    return [model.model_dump() for model in models]


def _key(citation: Citation) -> tuple:
    return (citation.id, citation.source_index, citation.valid, citation.problem)


@pytest.mark.parametrize("seed", range(60))
def test_layout_matches_the_reference(seed: int) -> None:
    citations, clusters, units = _answer(seed)
    expected = _reference_markers(LENGTH, citations, clusters)
    # (read as the field tables of the JSON a record carries)
    markers = marker_ranges(LENGTH, _rows(citations), _rows(clusters))
    assert list(zip(markers.starts, markers.ends, markers.groups)) == [
        (start, end, tuple(map(_key, members))) for start, end, members in expected
    ]
    placed = _reference_units(LENGTH, units, expected)
    laid = unit_ranges(LENGTH, _rows(units), markers)
    assert laid.bounds == [p for start, end, _ in placed for p in (start, end)]
    assert laid.units == _rows([unit for _, _, unit in placed])
    text = "".join(chr(ord("a") + i % 26) for i in range(LENGTH))
    cuts = [0, *(p for start, end, _ in expected for p in (start, end)), LENGTH]
    assert text_pieces(text, markers) == [
        text[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 2)
    ]
