"""Benchmark of the spans stage alone on the benchmark answer (20 verbatim units).

The `answer.cited` input is the benchmark answer taken through the real upstream
stages (ingest admission, scoring, citations), once; only `resolve_answer` is timed (no
envelope decoding or encoding). Wall time is the figure; process CPU time is reported beside
it because on a shared machine other processes inflate wall time.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import orjson

from schemas.answers import AnswerAccepted
from schemas.citations import AnswerCited
from services.bench.workload import bench_answer
from services.citations.logic import cite_answer
from services.ingest.answers import admit_data
from services.scoring.logic import score_answer
from services.spans.logic import resolve_answer

TARGET_MS = 0.5
_WARMUP = 20


def bench_cited(answer_id: str = "bench-spans") -> AnswerCited:
    """The benchmark answer as the citations stage publishes it."""
    admitted = admit_data(orjson.dumps(bench_answer(answer_id)), event_id=answer_id)
    if isinstance(admitted, AnswerAccepted):
        return cite_answer(score_answer(admitted))
    raise RuntimeError(f"benchmark answer rejected: {admitted.message}")


def bench_spans(runs: int = 300) -> dict[str, Any]:
    """Per-answer time of `resolve_answer` on the benchmark answer over `runs` runs (ms)."""
    cited = bench_cited()
    resolved = resolve_answer(cited)
    for _ in range(_WARMUP):
        resolve_answer(cited)
    timings: list[float] = []
    cpu: list[float] = []
    for _ in range(max(1, runs)):
        began, began_cpu = time.perf_counter(), time.process_time()
        resolve_answer(cited)
        timings.append((time.perf_counter() - began) * 1000.0)
        cpu.append((time.process_time() - began_cpu) * 1000.0)
    units = resolved.resolution.units
    return {
        "stage": "spans",
        "runs": len(timings),
        "median_ms": statistics.median(timings),
        "p90_ms": statistics.quantiles(timings, n=10)[-1]
        if len(timings) > 1
        else timings[0],
        "min_ms": min(timings),
        "cpu_median_ms": statistics.median(cpu),
        "target_ms": TARGET_MS,
        "units": len(units),
        "verbatim_units": sum(u.kind == "verbatim" for u in units),
        "downgraded_units": sum(u.downgraded for u in units),
        "spans": sum(len(u.source_spans) for u in units),
        "links": len(resolved.resolution.links),
    }
