"""The support check's better-source search for sentences that cite one source, made where the
passages are chosen.

When a sentence cites one source and the check of its passage there falls short of support
(services.verification.verify.searches_better, on the passage's counts), the search `verify`
makes runs here on the citations stage's indexes: the other supplied sources that might
score `BETTER_MARGIN` above the cited one and hold most of the sentence get their passage
for the sentence, counted like the cited one's, and the best of them (the highest lexical score, the lowest index on ties)
rides on the cited passage as its `rival` (with a null index when no source might). The
spans stage then decides `better_source` from the two sets of counts without reading a
source (services.spans.support). No rival is set when a source searched reads otherwise in
canonical form (its passage is not counted): the spans stage searches the sources itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemas.answers import Source
from schemas.citations import Rival
from schemas.construct import maker
from services.citations.passages import PassageFinder
from services.verification.judges import LEXICAL, verdict_of
from services.verification.support import counted_score
from services.verification.verify import (
    BETTER_MARGIN,
    CANDIDATES,
    SEARCH_BELOW,
    searches_better,
)

_rival = maker(Rival)


def add_rivals(
    finder: PassageFinder, passages: list[dict[str, Any]], sources: Sequence[Source]
) -> None:
    """Set `rival` in the field values of every counted passage (`finder`'s) whose sentence
    cites only its source and whose check falls short of support (see the module
    docstring)."""
    sources_citing: dict[int, int] = {}  # sentence -> how many sources it cites validly
    for sentences in finder.citing.values():
        for sentence in sentences:
            sources_citing[sentence] = sources_citing.get(sentence, 0) + 1
    indexes = sorted([source.index for source in sources])
    for own in passages:
        size = own["terms"]
        if not size:
            continue
        score = _score(size, own)
        if score >= SEARCH_BELOW or sources_citing.get(own["sentence_index"]) != 1:
            continue  # (no search from that score on, whatever the verdict)
        if searches_better(verdict_of(LEXICAL, score, bool(own["conflicts"])), score):
            rival = _best_rival(finder, own, size, score, indexes)
            if rival is not None:
                own["rival"] = _rival(rival)


def _best_rival(
    finder: PassageFinder, own: dict[str, Any], size: int, score: float, indexes: list[int]
) -> dict[str, Any] | None:
    """The rival's field values, or None when a source that might be the rival cannot be
    counted. A source's score is at most the share of the sentence's items it holds (its
    bound; the sentence's single digits, which are no terms, counted as held): only sources
    whose bound reaches `score + BETTER_MARGIN` can be clearly better, and the `CANDIDATES`
    with the highest bounds are searched, from the highest down, until no bound left can
    reach the best score (as `verify` does)."""
    sentence = own["sentence_index"]
    digits = size - len(finder.terms[sentence])
    floor = score + BETTER_MARGIN
    bounds: list[tuple[float, int]] = []
    for index in indexes:
        if index != own["source_index"]:
            held = finder.held(index, sentence)
            if held is not None and (held + digits) / size >= floor:
                bounds.append((-(held + digits) / size, index))
    best: dict[str, Any] | None = None
    top = -1.0
    for bound, index in sorted(bounds)[:CANDIDATES]:  # (the lowest index first on ties)
        if -bound < top:
            break
        found: list[dict[str, Any]] = []
        finder.search(index, [sentence], found)
        values = found[0]
        if values["terms"] is None:
            return None  # read otherwise in canonical form: the spans stage searches
        rival = _score(size, values)
        if rival > top or (rival == top and best is not None and index < best["source_index"]):
            best, top = values, rival
    if best is None:
        return {"source_index": None, "absent": 0, "lacking": 0, "conflicts": []}
    return {
        "source_index": best["source_index"],
        "absent": len(best["absent"]),
        "lacking": best["lacking"],
        "conflicts": best["conflicts"],
    }


def _score(size: int, values: dict[str, Any]) -> float:
    absent = len(values["absent"])
    return counted_score(size, absent, absent + values["lacking"], len(values["conflicts"]))


def _index(source: Source) -> int:
    return source.index
