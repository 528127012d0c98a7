"""`citeflow bench process`: the in-process pipeline on the benchmark answer, beside pySBD."""

from __future__ import annotations

from typing import Any

import orjson

from schemas.formatted import AnswerFormatted
from services.bench.timing import median_ms
from services.bench.workload import bench_answer
from services.pipeline import process_answer
from services.runtime.gc_tuning import tune_gc


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
    pipeline = median_ms(lambda: process_answer(raw, event_id="bench"), runs, warmup=5)
    reference = pysbd_ms(answer["text"], max(5, runs // 20))
    return {
        "words": len(answer["text"].split()),
        "citations": len(result.citations),
        "verbatim_units": sum(u.kind == "verbatim" for u in result.answer_units.units),
        "pipeline_ms": pipeline,
        "pysbd_ms": reference,
        "speedup": reference / pipeline,
    }
