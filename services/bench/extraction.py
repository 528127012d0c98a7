"""Benchmark of citation extraction with sentence mapping on the benchmark answer, beside pySBD
segmenting the same text in the same run (target: extraction within 0.5 ms)."""

from __future__ import annotations

import gc
import statistics
from typing import Any

from schemas.answers import AnswerAccepted, AnswerSubmitted
from services.bench.timing import samples_ms
from services.bench.workload import bench_answer
from services.citations.logic import cite_answer
from services.citations.maps import citation_map, sentence_map
from services.text.extraction import extract

BUDGET_MS = 0.5


def bench_extraction(runs: int) -> dict[str, Any]:
    """Per-answer median times (ms) over `runs` calls: extraction with sentence mapping
    (`extract` and both maps), the whole citations stage (`cite_answer`, a quarter as many
    runs), and pySBD segmenting the same text (one run per round of 50)."""
    import pysbd  # the accuracy reference, a benchmark-only dependency

    from services.scoring.logic import score_answer

    answer = AnswerSubmitted.model_validate(bench_answer())
    text, sources = answer.text, answer.sources
    scored = score_answer(AnswerAccepted(answer=answer, submitted_event_id="bench", size_bytes=0))

    def extraction() -> None:
        found = extract(text, sources)
        citation_map(found)
        sentence_map(found)

    segmenter = pysbd.Segmenter(language="en", clean=False)
    found = extract(text, sources)
    for warmup in (extraction, lambda: cite_answer(scored), lambda: segmenter.segment(text)):
        warmup()
    gc.collect()
    # Interleaved rounds, so both sides of the comparison see the same machine load.
    rounds = max(3, runs // 50)
    per_round = max(1, runs // rounds)
    extraction_ms: list[float] = []
    stage_ms: list[float] = []
    pysbd_ms: list[float] = []
    for _ in range(rounds):
        pysbd_ms += samples_ms(lambda: segmenter.segment(text), 1)
        extraction_ms += samples_ms(extraction, per_round)
        stage_ms += samples_ms(lambda: cite_answer(scored), max(1, per_round // 4))
    extraction_median = statistics.median(extraction_ms)
    pysbd_median = statistics.median(pysbd_ms)
    return {
        "words": len(text.split()),
        "citations": len(found.citations),
        "sentences": len(found.sentences),
        "pysbd_sentences": len(segmenter.segment(text)),
        "extraction_ms": extraction_median,
        "citations_stage_ms": statistics.median(stage_ms),
        "pysbd_ms": pysbd_median,
        "speedup_vs_pysbd": pysbd_median / extraction_median,
        "budget_ms": BUDGET_MS,
        "within_budget": extraction_median <= BUDGET_MS,
    }
