"""`citeflow bench process`: the in-process pipeline on the SPEC §7 answer, beside pySBD."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import orjson

from schemas.formatted import AnswerFormatted
from services.bench.workload import bench_answer
from services.pipeline import process_answer
from services.runtime.gc_tuning import tune_gc


def median_ms(fn: Callable[[], object], runs: int, warmup: int = 5) -> float:
    """Median wall time of `fn` in milliseconds over `runs` calls."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def pysbd_ms(text: str, runs: int) -> float:
    """pySBD segmenting `text` (the accuracy reference), median ms."""
    import pysbd

    segmenter = pysbd.Segmenter(language="en", clean=False)
    return median_ms(lambda: segmenter.segment(text), runs, warmup=2)


def bench_pipeline(runs: int) -> dict[str, Any]:
    """Per-answer time of all five stages in-process, and pySBD on the same text."""
    tune_gc()  # as `citeflow process` and every stage process run
    answer = bench_answer()
    raw = orjson.dumps(answer)
    result = process_answer(raw, event_id="bench")
    if not isinstance(result, AnswerFormatted):
        raise RuntimeError(f"benchmark answer did not format: {result}")
    pipeline = median_ms(lambda: process_answer(raw, event_id="bench"), runs)
    reference = pysbd_ms(answer["text"], max(5, runs // 20))
    return {
        "words": len(answer["text"].split()),
        "citations": len(result.citations),
        "verbatim_units": sum(u.kind == "verbatim" for u in result.answer_units.units),
        "pipeline_ms": pipeline,
        "pysbd_ms": reference,
        "speedup": reference / pipeline,
    }
