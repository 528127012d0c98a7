"""The better-source search of SPEC §11 for sentences that cite one source, made where the
passages are chosen.

When a sentence cites one source and the check of its passage there falls short of support
(services.verification.verify.searches_better, on the passage's counts), the same search
`verify` makes runs here on the citations stage's indexes: every other supplied source's
passage for the sentence, counted like the cited one's, and the best of them (the highest
lexical score, the lowest index on ties) rides on the cited passage as its `rival`. The
spans stage then decides `better_source` from the two sets of counts without reading a
source (services.spans.support). No rival is set when one of those sources reads otherwise
in canonical form (its passage is not counted): the spans stage searches the sources itself.
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
from services.verification.verify import searches_better

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
    searching: dict[int, dict[str, Any]] = {}
    for values in passages:
        size = values["terms"]
        sentence = values["sentence_index"]
        if size and sources_citing.get(sentence) == 1:
            score = _score(size, values)
            if searches_better(verdict_of(LEXICAL, score, bool(values["conflicts"])), score):
                searching[sentence] = values
    if not searching:
        return
    found: list[dict[str, Any]] = []
    for source in sorted(sources, key=_index):  # the lowest index first: it wins ties
        finder.search(
            source.index,
            [s for s, own in searching.items() if own["source_index"] != source.index],
            found,
        )
    others: dict[int, list[dict[str, Any]]] = {}
    for values in found:
        others.setdefault(values["sentence_index"], []).append(values)
    for sentence, own in searching.items():
        best: dict[str, Any] | None = None
        top = -1.0
        for values in others.get(sentence, ()):
            if values["terms"] is None:
                break  # a source read otherwise in canonical form: no rival from here
            score = _score(own["terms"], values)
            if score > top:
                best, top = values, score
        else:
            own["rival"] = _rival(
                {
                    "source_index": None,
                    "absent": 0,
                    "lacking": 0,
                    "conflicts": [],
                }
                if best is None
                else {
                    "source_index": best["source_index"],
                    "absent": len(best["absent"]),
                    "lacking": best["lacking"],
                    "conflicts": best["conflicts"],
                }
            )


def _score(size: int, values: dict[str, Any]) -> float:
    absent = len(values["absent"])
    return counted_score(size, absent, absent + values["lacking"], len(values["conflicts"]))


def _index(source: Source) -> int:
    return source.index
