"""`bench_scoring`: the scoring stage on the benchmark answer, with and without the shared
citation extraction, and with the lexical memo warm (chunks seen before) or cold."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from schemas.answers import AnswerAccepted, AnswerSubmitted
from services.bench.timing import median_ms
from services.bench.workload import bench_answer
from services.scoring.logic import citing_from, score_answer, score_sources
from services.text import lexical
from services.text.extraction import extract


def bench_scoring(runs: int) -> dict[str, Any]:
    """Median per-answer times (ms). `scoring_ms` excludes the shared `extract()` call, with
    the chunks' statistics memoised (chunks seen before); `scoring_new_chunks_ms` forgets the
    chunks first (new chunks, known vocabulary); `scoring_first_ms` forgets every word too;
    `extract_ms` is the shared call alone; `score_answer_ms` is the stage logic end to end."""
    answer = AnswerSubmitted.model_validate(bench_answer())
    accepted = AnswerAccepted(answer=answer, submitted_event_id="bench", size_bytes=0)
    found = extract(answer.text, answer.sources)

    def scoring() -> object:
        # A fresh copy of the extraction: the citing sentences' terms are not remembered.
        return score_sources(answer, citing_from(replace(found)))

    for _ in range(5):
        score_answer(accepted)
    return {
        "sources": len(answer.sources),
        "citations": len(found.citations),
        "scoring_ms": median_ms(scoring, runs),
        "scoring_new_chunks_ms": median_ms(
            scoring, max(5, runs // 5), before=lambda: lexical.clear_memo(vocabulary=False)
        ),
        "scoring_first_ms": median_ms(scoring, max(5, runs // 5), before=lexical.clear_memo),
        "extract_ms": median_ms(lambda: extract(answer.text, answer.sources), runs),
        "score_answer_ms": median_ms(lambda: score_answer(accepted), runs),
    }
