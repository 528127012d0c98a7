"""Property tests of scoring over random answers: ranges, ranks, eligibility, the cap."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.answers import AnswerAccepted, AnswerSubmitted
from services.scoring.logic import score_answer

WORDS = ["magma", "crust", "tide", "moon", "yeast", "bread", "the", "of", "rises", "forms"]
sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)


@st.composite
def answers(draw: st.DrawFn) -> AnswerSubmitted:
    count = draw(st.integers(min_value=0, max_value=6))
    indexes = draw(st.permutations(range(1, 9)))[:count]
    sources = [
        {
            "index": index,
            "score": draw(st.none() | st.floats(allow_nan=False, allow_infinity=False)),
            "chunks": [{"text": draw(sentence)} for _ in range(draw(st.integers(0, 3)))],
        }
        for index in indexes
    ]
    cited = st.lists(st.integers(min_value=0, max_value=9), max_size=3)
    text = " ".join(
        f"{draw(sentence)} " + "".join(f"[{n}]" for n in draw(cited)) + "."
        for _ in range(draw(st.integers(0, 5)))
    )
    options = {
        "min_citation_score": draw(st.floats(0, 1)),
        "max_citations": draw(st.integers(0, 6)),
    }
    query = draw(st.none() | sentence)
    return AnswerSubmitted.model_validate(
        {"answer_id": "p", "query": query, "text": text, "sources": sources, "options": options}
    )


@settings(max_examples=150, deadline=None)
@given(answers())
def test_scoring_invariants(answer: AnswerSubmitted) -> None:
    accepted = AnswerAccepted(answer=answer, submitted_event_id="e", size_bytes=0)
    scored = score_answer(accepted)
    options = answer.effective_options()
    assert [s.index for s in scored.scores] == [s.index for s in answer.sources]
    assert sorted(s.rank for s in scored.scores) == list(range(1, len(answer.sources) + 1))
    by_rank = sorted(scored.scores, key=lambda s: s.rank)
    for better, worse in zip(by_rank, by_rank[1:]):
        assert (better.score, -better.index) > (worse.score, -worse.index)
    for s in scored.scores:
        parts, weights = s.explanation.parts, s.explanation.weights
        assert 0.0 <= s.score <= 1.0
        assert all(0.0 <= v <= 1.0 for v in parts.values())
        assert math.isclose(sum(weights.values()), 1.0)
        assert abs(s.score - sum(weights[k] * parts[k] for k in parts)) <= 1e-6
        assert s.eligible == (s.score >= options.min_citation_score)
        assert s.cited == (s.citation_count > 0)
        assert s.cited or s.support == 0.0
    assert len(scored.passage_sources) <= options.max_citations
    assert len(set(scored.passage_sources)) == len(scored.passage_sources)
    chosen = [s for s in by_rank if s.eligible and s.cited][: options.max_citations]
    assert scored.passage_sources == [s.index for s in chosen]
    assert score_answer(accepted) == scored
