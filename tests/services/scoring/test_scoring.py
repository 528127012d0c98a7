"""Scoring: parts, combination, ranks, eligibility, the passage-source cap, explanations."""

from __future__ import annotations

import math
from typing import Any

import pytest

from schemas.answers import AnswerAccepted, AnswerSubmitted
from schemas.scoring import AnswerScored, SourceScore
from services.bench.workload import bench_answer
from services.scoring.combine import WEIGHTS
from services.scoring.logic import score_answer
from services.text import lexical


def _source(index: int, text: str, score: float | None = None, title: str | None = None) -> dict:
    return {"index": index, "score": score, "title": title, "chunks": [{"text": text}]}


def _score(
    text: str,
    sources: list[dict],
    query: str | None = "How do volcanoes form?",
    **options: Any,
) -> AnswerScored:
    data = {"answer_id": "a-1", "query": query, "text": text, "sources": sources}
    if options:
        data["options"] = options
    answer = AnswerSubmitted.model_validate(data)
    return score_answer(AnswerAccepted(answer=answer, submitted_event_id="e-1", size_bytes=1))


def _by_index(scored: AnswerScored) -> dict[int, SourceScore]:
    return {s.index: s for s in scored.scores}


VOLCANO = "Volcanoes form where magma rises through cracks in the crust of the earth."
OCEAN = "Ocean tides are driven by the gravitational pull of the moon."
BAKING = "Bread dough rises because yeast ferments sugars into carbon dioxide."

SOURCES = [
    _source(1, VOLCANO, 9.0, "Volcano formation"),
    _source(2, OCEAN, 3.0, "Tides"),
    _source(3, BAKING, 1.0, "Baking"),
]
TEXT = "Volcanoes form when magma rises through the crust [1]. Tides follow the moon [2][9]."


def _check_consistent(scored: AnswerScored) -> None:
    for s in scored.scores:
        parts, weights = s.explanation.parts, s.explanation.weights
        assert parts.keys() == weights.keys() and "support" in parts
        assert math.isclose(sum(weights.values()), 1.0)
        assert all(0.0 <= value <= 1.0 for value in parts.values())
        assert abs(s.score - sum(weights[k] * parts[k] for k in parts)) <= 1e-6
        assert 0.0 <= s.score <= 1.0
        assert s.support == parts["support"]
        assert f"{s.score:.3f}" in s.explanation.text
        assert f"ranks {s.rank} of {len(scored.scores)}" in s.explanation.text


def test_scores_ranks_and_explanations_are_consistent() -> None:
    scored = _score(TEXT, SOURCES)
    _check_consistent(scored)
    assert [s.index for s in scored.scores] == [1, 2, 3]  # input order
    assert sorted(s.rank for s in scored.scores) == [1, 2, 3]
    ranked = sorted(scored.scores, key=lambda s: s.rank)
    assert [s.score for s in ranked] == sorted((s.score for s in ranked), reverse=True)
    assert ranked[0].index == 1


def test_cited_and_citation_counts_use_valid_citations_only() -> None:
    scored = _by_index(_score("Magma rises [1]. Magma erupts [1][2]. Nothing [9].", SOURCES))
    assert (scored[1].cited, scored[1].citation_count) == (True, 2)
    assert (scored[2].cited, scored[2].citation_count) == (True, 1)
    assert (scored[3].cited, scored[3].citation_count) == (False, 0)
    assert "cited 2 times" in scored[1].explanation.text
    assert "not cited" in scored[3].explanation.text


def test_support_measures_coverage_of_citing_sentences() -> None:
    text = "Volcanoes form where magma rises through cracks [1]. Volcanoes form from magma [2]."
    scored = _by_index(_score(text, SOURCES))
    assert scored[1].support == 1.0
    assert scored[2].support == 0.0  # the ocean source shares no content word
    assert scored[3].support == 0.0  # not cited
    partial = _by_index(_score("Magma rises near the moon [1].", SOURCES))
    assert 0.0 < partial[1].support < 1.0


def test_support_ignores_the_citation_markers() -> None:
    sources = [_source(12, "Results for the cohort were published.")]
    scored = _by_index(_score("Cohort results [12].", sources, query=None))
    assert scored[12].support == 1.0  # "12" of the marker is not a word of the sentence


def test_lexical_relevance_is_bm25_normalised_to_the_best_source() -> None:
    scored = _by_index(_score(TEXT, SOURCES, query="volcano magma"))
    assert scored[1].lexical == 1.0
    assert scored[2].lexical == scored[3].lexical == 0.0
    none_match = _by_index(_score(TEXT, SOURCES, query="quantum chromodynamics"))
    assert all(s.lexical == 0.0 and "lexical" in s.explanation.parts for s in none_match.values())


@pytest.mark.parametrize("query", [None, "", "what is it and how?"])
def test_without_a_usable_query_the_lexical_weight_is_redistributed(query: str | None) -> None:
    scored = _score(TEXT, SOURCES, query=query)
    _check_consistent(scored)
    for s in scored.scores:
        assert "lexical" not in s.explanation.weights
        total = WEIGHTS["retriever"] + WEIGHTS["support"]
        assert math.isclose(s.explanation.weights["support"], WEIGHTS["support"] / total)


def test_retriever_scores_are_min_max_normalised() -> None:
    scored = _by_index(_score(TEXT, SOURCES))
    assert (scored[1].retriever_norm, scored[3].retriever_norm) == (1.0, 0.0)
    assert scored[2].retriever_norm == pytest.approx(0.25)
    assert scored[2].retriever_score == 3.0


def test_missing_retriever_scores() -> None:
    sources = [dict(s, score=None) for s in SOURCES]
    scored = _score(TEXT, sources)
    _check_consistent(scored)
    assert all(s.retriever_norm is None for s in scored.scores)
    assert all("retriever" not in s.explanation.weights for s in scored.scores)
    mixed = _by_index(_score(TEXT, [SOURCES[0], dict(SOURCES[1], score=None), SOURCES[2]]))
    assert mixed[2].retriever_norm is None and "retriever" not in mixed[2].explanation.parts
    assert "retriever" in mixed[1].explanation.parts


@pytest.mark.parametrize("scores", [[5.0, 5.0, 5.0], [0.0, 0.0, 0.0], [-2.5, -2.5, -2.5]])
def test_equal_retriever_scores_all_normalise_to_one(scores: list[float]) -> None:
    sources = [dict(s, score=v) for s, v in zip(SOURCES, scores)]
    assert all(s.retriever_norm == 1.0 for s in _score(TEXT, sources).scores)


def test_single_source() -> None:
    scored = _score("Magma rises [1].", [SOURCES[0]])
    _check_consistent(scored)
    [only] = scored.scores
    assert (only.rank, only.retriever_norm, only.cited) == (1, 1.0, True)
    assert scored.passage_sources == [1]


def test_no_sources() -> None:
    scored = _score("Nothing is cited [1].", [])
    assert scored.scores == [] and scored.passage_sources == []


def test_ties_are_ranked_by_index() -> None:
    sources = [_source(i, "Same text about magma.", 1.0) for i in (4, 2, 3)]
    scored = _by_index(_score("Unrelated words here.", sources))
    assert [scored[i].rank for i in (2, 3, 4)] == [1, 2, 3]


@pytest.mark.parametrize("threshold", [0.0, 0.3, 0.5, 0.9, 1.0, 1.5])
def test_eligibility_threshold(threshold: float) -> None:
    scored = _score(TEXT, SOURCES, min_citation_score=threshold)
    for s in scored.scores:
        assert s.eligible == (s.score >= threshold)
        assert ("not eligible" in s.explanation.text) != s.eligible
    assert all(_by_index(scored)[i].eligible for i in scored.passage_sources)


def test_passage_sources_are_cited_eligible_sources_best_first_and_capped() -> None:
    sources = [_source(i, f"Magma fact number {i} about volcanoes.", float(i)) for i in range(1, 8)]
    text = " ".join(f"Magma fact {i} [{i}]." for i in (1, 2, 3, 5, 6, 7))
    full = _score(text, sources, max_citations=10)
    ranked = [s.index for s in sorted(full.scores, key=lambda s: s.rank) if s.cited]
    assert full.passage_sources == ranked and 4 not in full.passage_sources
    assert _score(text, sources, max_citations=3).passage_sources == ranked[:3]
    assert _score(text, sources, max_citations=0).passage_sources == []
    strict = _score(text, sources, min_citation_score=0.7)
    assert all(_by_index(strict)[i].score >= 0.7 for i in strict.passage_sources)


def test_scoring_is_deterministic_and_independent_of_the_memo() -> None:
    first = _score(TEXT, SOURCES).model_dump()
    lexical.clear_memo()
    assert _score(TEXT, SOURCES).model_dump() == first
    assert _score(TEXT, SOURCES).model_dump() == first


def test_benchmark_answer() -> None:
    answer = AnswerSubmitted.model_validate(bench_answer())
    scored = score_answer(AnswerAccepted(answer=answer, submitted_event_id="b", size_bytes=1))
    _check_consistent(scored)
    assert sorted(s.rank for s in scored.scores) == list(range(1, 11))
    assert sum(s.citation_count for s in scored.scores) == 50
    assert all(s.support > 0.5 for s in scored.scores)  # every sentence is drawn from its source
    assert len(scored.passage_sources) == 10


def test_extreme_retriever_scores_stay_in_range() -> None:
    sources = [dict(SOURCES[0], score=-1e308), dict(SOURCES[1], score=1e308), SOURCES[2]]
    scored = _by_index(_score(TEXT, sources))
    assert (scored[1].retriever_norm, scored[2].retriever_norm) == (0.0, 1.0)
    assert scored[3].retriever_norm == pytest.approx(0.5)


@pytest.mark.parametrize(
    "sources",
    [
        [_source(1, VOLCANO, 3), _source(2, OCEAN, 1.5, "Tides")],
        [_source(1, VOLCANO), _source(2, OCEAN, 2)],
        [_source(1, VOLCANO, 1e308), _source(2, OCEAN, -1e308)],
    ],
)
def test_output_built_without_validation_survives_validation(sources: list[dict]) -> None:
    scored = _score(f"{VOLCANO} [1] {OCEAN} [2] [3]", sources, min_citation_score=0.3)
    again = AnswerScored.model_validate(scored.model_dump())
    assert again == scored
    assert again.model_dump_json() == scored.model_dump_json()
    for row in scored.scores:
        assert type(row.score) is float and type(row.support) is float
        assert all(type(value) is float for value in row.explanation.weights.values())
    first, *rest = scored.scores
    assert all(row.explanation.weights is not first.explanation.weights for row in rest)


def test_bench_answer_survives_validation() -> None:
    answer = AnswerSubmitted.model_validate(bench_answer())
    scored = score_answer(AnswerAccepted(answer=answer, submitted_event_id="e", size_bytes=1))
    assert AnswerScored.model_validate(scored.model_dump()) == scored


def _reference_text(s: SourceScore, of: int, threshold: float) -> str:
    """The explanation composed the plain way, part by part."""
    weights, parts = s.explanation.weights, s.explanation.parts
    terms = " + ".join(f"{weights[name]:.2f}×{name} {parts[name]:.2f}" for name in parts)
    count = s.citation_count
    cited = "not cited" if count == 0 else "cited once" if count == 1 else f"cited {count} times"
    verdict = "eligible" if s.eligible else "not eligible"
    return (
        f"Source {s.index} ranks {s.rank} of {of} with {s.score:.3f} = {terms}; {cited}; "
        f"{verdict} (min_citation_score {threshold:g})."
    )


@pytest.mark.parametrize("query", [None, "volcano magma"])
@pytest.mark.parametrize("threshold", [0.0, 0.25, 1.0])
def test_explanation_text_matches_the_plain_composition(
    query: str | None, threshold: float
) -> None:
    sources = [SOURCES[0], dict(SOURCES[1], score=None), SOURCES[2]]
    scored = _score(TEXT, sources, query=query, min_citation_score=threshold)
    for s in scored.scores:
        assert s.explanation.text == _reference_text(s, len(scored.scores), threshold)
