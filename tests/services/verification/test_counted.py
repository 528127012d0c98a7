"""The counts the citations stage finds for each passage (services.citations.checks) give
the same lexical check as reading the passage's text (services.verification.support.assess):
same verdicts, scores, missing words, conflicts, better sources and answer quality, whether
`verify` judges from them or the spans stage decides from them alone
(services.spans.support.CountedSingles)."""

from __future__ import annotations

from typing import Any

import pytest

from schemas.rows import rows
from schemas.spans import AnswerQuality, Support
from services.bench.e2e import ANSWER_SHAPE
from services.bench.verification import cited_event, expertqa_answers
from services.bench.workload import bench_answer
from services.spans.locators import Locators
from services.spans.search import QuoteFinder
from services.spans.sections import SectionIndex
from services.spans.support import (
    SourcePieces,
    _claims,
    _passages,
    _verbatim,
    blanked,
    citation_support,
    passage_pairs,
    sentence_bounds,
)
from services.spans.units import UnitContext, sentence_units
from services.verification.judges import LEXICAL
from services.verification.support import read_passage
from services.verification.verify import Verification, verify
from tests.conftest import corpus_path

_NUMBERS = {
    "answer_id": "numbers",
    "text": (
        "The tower was finished in 1889 and is 330 metres tall [1]. "
        "It did not open in 1890 [1][2]. It has 3 floors and 2 restaurants [2]. "
        "Climbers reach the summit in 5 days [1, 2]."
    ),
    "sources": [
        {"index": 1, "chunks": [{"text": "The tower was finished in 1889. It is 330 metres "
                                         "tall. It has 3 floors. It opened in 1889."}]},
        {"index": 2, "chunks": [{"text": "The tower has 4 floors and 2 restaurants. No one "
                                         "climbs it in 5 days. It never opened in 1890."}]},
    ],
}


_REFERENCES = {
    "answer_id": "references",
    "text": (
        "As passage 1 says, the tower was finished in 1889 [1]. "
        "Sources 1 and 2 agree that it has 4 floors [1][2]. "
        "Passage ID 2 mentions two restaurants [2]."
    ),
    "sources": _NUMBERS["sources"],
}


_NAMED = {
    "answer_id": "named",
    "text": (
        "In Moby-Dick, Herman Melville has Ishmael go to sea when he has little money [1]. "
        "Melville's narrator also mentions the watery part of the world [1][2]. "
        "The Everest guide by Hillary says May is the month for the summit [2]."
    ),
    "sources": [
        {"index": 1, "title": "Moby-Dick", "authors": ["Herman Melville"], "chunks": [
            {"text": "Call me Ishmael. Having little money in my purse, I thought I would "
                     "sail about a little and see the watery part of the world."}]},
        {"index": 2, "title": "Everest guide", "authors": ["Edmund Hillary"], "chunks": [
            {"text": "Climbers usually attempt the summit in May. The watery part of the "
                     "world is below."}]},
    ],
}


def _both(data: dict[str, Any]) -> tuple[Verification, Verification, int]:
    """`verify` with the counted passages and with passages read; the spans stage's own
    support (decided from the counts where it can) is checked against the latter."""
    cited = cited_event(data)
    answer = cited.answer
    index = SectionIndex.from_sources(answer.sources)
    ctx = UnitContext(
        answer, cited.extraction, QuoteFinder(index.pieces), index, Locators(), []
    )
    units = sentence_units(ctx)
    text = blanked(ctx.text, cited.extraction)
    bounds = sentence_bounds(rows(cited.extraction, "sentences"))
    passages_of = rows(cited.extraction, "passages")
    claims, sentences, uncited = _claims(
        cited.extraction, rows(cited.extraction, "citations"), text, bounds
    )
    verbatim: dict[int, frozenset[int]] = {}
    names = SourcePieces(index.pieces, index.sources).names
    for sentence, source in _verbatim(units, bounds, text, names):
        verbatim[sentence] = verbatim.get(sentence, frozenset()) | {source}
    passages = _passages(passages_of, passage_pairs(passages_of), claims, sentences)
    read = {key: read_passage(p.link, p.text) for key, p in passages.items()}
    counted = sum(p.terms is not None for p in passages.values())
    sources = [source.index for source in answer.sources]
    results = [
        verify(claims, sentences, sources, SourcePieces(index.pieces, index.sources).view, verbatim,
               LEXICAL, given, uncited)
        for given in (passages, read)
    ]
    support, quality = citation_support(ctx, index.pieces, units, LEXICAL)
    _same_support(support, quality, results[1])
    return results[0], results[1], counted


def _same_support(
    support: list[Support | None], quality: AnswerQuality, slow: Verification
) -> None:
    assert [p for p, entry in enumerate(support) if entry] == sorted(slow.outcomes)
    for position, outcome in slow.outcomes.items():
        entry = support[position]
        assert entry is not None
        assert entry.better_source == outcome.better_source, position
        if entry.atoms:  # remade from its atoms (services.spans.atoms): not the counts' verdict
            continue
        assert (entry.verdict, entry.score) == (outcome.verdict, outcome.score), position
        assert sorted(entry.missing) == sorted(outcome.missing), position
        assert sorted(entry.conflicts) == sorted(outcome.conflicts), position
    expected = slow.quality
    assert quality.sentences == expected.sentences
    if not any(entry is not None and entry.atoms for entry in support):
        assert (quality.citation_recall, quality.citation_precision) == (
            round(expected.citation_recall, 4),
            round(expected.citation_precision, 4),
        )


def _same(fast: Verification, slow: Verification) -> None:
    assert fast.quality == slow.quality
    assert fast.outcomes.keys() == slow.outcomes.keys()
    for position, outcome in fast.outcomes.items():
        other = slow.outcomes[position]
        assert (outcome.verdict, outcome.score, outcome.better_source) == (
            other.verdict, other.score, other.better_source
        ), position
        assert sorted(outcome.missing) == sorted(other.missing), position
        assert sorted(outcome.conflicts) == sorted(other.conflicts), position


def test_counts_equal_reading_on_the_section7_answer() -> None:
    fast, slow, counted = _both(bench_answer("counted"))
    assert counted > 0
    _same(fast, slow)


def test_counts_equal_reading_with_numbers_and_negations() -> None:
    fast, slow, counted = _both(_NUMBERS)
    assert counted > 0
    assert {"number", "negation"} <= {c for o in fast.outcomes.values() for c in o.conflicts}
    _same(fast, slow)


def test_counts_equal_reading_with_numbered_references_to_sources() -> None:
    fast, slow, counted = _both(_REFERENCES)
    assert counted > 0
    _same(fast, slow)
    first = fast.outcomes[0]
    assert (first.verdict, list(first.conflicts)) == ("supported", [])  # `1` is no figure


def test_counts_equal_reading_with_the_sources_own_names() -> None:
    fast, slow, counted = _both(_NAMED)
    assert counted > 0
    _same(fast, slow)
    assert fast.outcomes[0].verdict == "supported"  # title and author frame the claim


def test_counts_and_rivals_equal_reading_on_the_e2e_benchmark_answers() -> None:
    """The answers `bench e2e` sends: some of their citations look for a better source,
    each decided from its passage's rival."""
    rivals = 0
    for seed in range(40):
        data = bench_answer(f"e2e-{seed}", seed=seed, **ANSWER_SHAPE)
        rivals += sum(p.rival is not None for p in cited_event(data).extraction.passages)
        fast, slow, found = _both(data)
        assert found > 0
        _same(fast, slow)
    assert rivals > 20


@pytest.mark.corpus
def test_counts_equal_reading_on_expertqa_answers() -> None:
    answers = expertqa_answers(corpus_path("answers"))
    counted = 0
    for data in answers:
        fast, slow, found = _both(data)
        counted += found
        _same(fast, slow)
    assert counted > 0


def test_counts_equal_reading_on_a_chinese_answer() -> None:
    """Full-width punctuation changes no words: Chinese passages are counted where chosen
    (not read again in the spans stage), and the two checks agree."""
    from services.bench.sentences import chinese_answer

    fast, slow, counted = _both(chinese_answer())
    assert counted > 0
    _same(fast, slow)
