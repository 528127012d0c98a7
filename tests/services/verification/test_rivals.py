"""A passage's `rival_cover` (services.citations.passages) bounds what every other supplied
source counts towards its lexical score, so the better-source search it rules out
(services.verification.verify.rivals_fall_short) would have found nothing: the support is
the same with the bound as without it."""

from __future__ import annotations

from typing import Any

from services.bench.e2e import ANSWER_SHAPE
from services.bench.verification import cited_event, expertqa_answers
from services.bench.workload import bench_answer
from services.spans.locators import Locators
from services.spans.search import QuoteFinder
from services.spans.sections import SectionIndex
from services.spans.support import SourcePieces, blanked, citation_support, reads_chunks
from services.spans.units import UnitContext, sentence_units
from services.verification.claims import read_claim
from services.verification.judges import LEXICAL
from services.verification.support import CONFLICT_FACTOR, assess
from tests.conftest import corpus_path

_E2E = [bench_answer(f"rivals-{i}", seed=i, **ANSWER_SHAPE) for i in range(20)]


def _bounded(data: dict[str, Any]) -> int:
    """Check every counted passage's bound against each other source's lexical check of its
    sentence; how many bounds were checked."""
    cited = cited_event(data)
    answer = cited.answer
    index = SectionIndex.from_sources(answer.sources)
    if not reads_chunks(index.pieces):
        return 0
    views = SourcePieces(index.pieces)
    text = blanked(answer.text, cited.extraction)
    sentences = {s.index: text[s.start : s.end].strip() for s in cited.extraction.sentences}
    checked = 0
    for passage in cited.extraction.passages:
        if passage.rival_cover is None or not passage.terms:
            continue
        claim = read_claim(sentences[passage.sentence_index])
        assert len(claim.items) == passage.terms
        for source in answer.sources:
            view = views.view(source.index)
            if source.index == passage.source_index or view is None:
                continue
            found = assess(claim, [view])
            cover = found.score * 2 * passage.terms / CONFLICT_FACTOR ** len(found.conflicts)
            assert cover <= passage.rival_cover + 1e-9, (passage, source.index)
            checked += 1
    return checked


def _same_without_bounds(data: dict[str, Any]) -> None:
    """The spans stage's support with the passages' bounds and with them dropped."""
    cited = cited_event(data)
    answer = cited.answer
    index = SectionIndex.from_sources(answer.sources)
    results = []
    for keep in (True, False):
        if not keep:
            for passage in cited.extraction.passages:
                passage.__dict__["rival_cover"] = None
        ctx = UnitContext(
            answer, cited.extraction, QuoteFinder(index.pieces), index.pieces, Locators(), []
        )
        support, quality = citation_support(ctx, index.pieces, sentence_units(ctx), LEXICAL)
        results.append(([s and s.model_dump() for s in support], quality.model_dump()))
    assert results[0] == results[1]


def test_rival_cover_bounds_every_other_source() -> None:
    assert sum(map(_bounded, _E2E)) > 0


def test_rival_cover_bounds_on_expertqa_answers() -> None:
    for data in expertqa_answers(corpus_path("answers")):
        _bounded(data)


def test_support_is_the_same_without_the_bounds() -> None:
    for data in _E2E:
        _same_without_bounds(data)
    for data in expertqa_answers(corpus_path("answers")):
        _same_without_bounds(data)
