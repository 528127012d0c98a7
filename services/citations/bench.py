"""Benchmark of citation extraction with sentence mapping on the SPEC §7 answer, beside pySBD
segmenting the same text in the same run (SPEC §7: extraction within 0.5 ms)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

from schemas.answers import AnswerAccepted, AnswerSubmitted
from services.bench.workload import bench_answer
from services.citations.extract import extract
from services.citations.logic import cite_answer
from services.citations.maps import citation_map, sentence_map

BUDGET_MS = 0.5


def _median_ms(fn: Callable[[], object], runs: int, warmup: int = 3) -> float:
    """Median wall time of `fn` in milliseconds over `runs` calls (after `warmup` calls)."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(max(1, runs)):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def bench_extraction(runs: int) -> dict[str, Any]:
    """Per-answer median times (ms): extraction with sentence mapping (`extract` and both
    maps), the whole citations stage (`cite_answer`), and pySBD segmenting the same text."""
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
    gc.collect()
    extraction_ms = _median_ms(extraction, runs)
    stage_ms = _median_ms(lambda: cite_answer(scored), max(1, runs // 4))
    pysbd_ms = _median_ms(lambda: segmenter.segment(text), max(3, runs // 50), warmup=1)
    return {
        "words": len(text.split()),
        "citations": len(found.citations),
        "sentences": len(found.sentences),
        "pysbd_sentences": len(segmenter.segment(text)),
        "extraction_ms": extraction_ms,
        "citations_stage_ms": stage_ms,
        "pysbd_ms": pysbd_ms,
        "speedup_vs_pysbd": pysbd_ms / extraction_ms,
        "budget_ms": BUDGET_MS,
        "within_budget": extraction_ms <= BUDGET_MS,
    }
