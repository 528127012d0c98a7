"""Benchmark of the formatting stage alone on the benchmark answer (1,000 words, 50
citations, 10 sources, 20 verbatim units).

The `answer.resolved` input is made by the real upstream stage logic (admission,
`score_answer`, `cite_answer`, `resolve_answer`) from `services.bench.workload`. Only
`format_answer` (all three renderings) and, for the breakdown, its parts are timed. As a
reference, `html.escape` of a 9 KB text (about 0.04 ms) is timed
alternately with `format_answer`, so their ratio holds while the machine's load changes.
"""

from __future__ import annotations

import html
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import orjson

from schemas.answers import AnswerAccepted
from schemas.spans import AnswerResolved
from services.bench.timing import median_ms
from services.bench.workload import bench_answer
from services.citations.logic import cite_answer
from services.formatting.logic import RENDERERS, build_layout, format_answer
from services.formatting.sources import format_sources
from services.ingest.answers import admit_data
from services.scoring.logic import score_answer
from services.spans.logic import resolve_answer

BUDGET_MS = 0.3


def resolved_bench_answer() -> AnswerResolved:
    """The benchmark answer through the real stages up to `answer.resolved`."""
    admitted = admit_data(orjson.dumps(bench_answer()), event_id="bench-formatting")
    if not isinstance(admitted, AnswerAccepted):
        raise TypeError(f"benchmark answer rejected: {admitted}")
    return resolve_answer(cite_answer(score_answer(admitted)))


def paired_ms(
    fn: Callable[[], object],
    reference: Callable[[], object],
    runs: int,
    warmup: int = 20,
) -> tuple[float, float, float]:
    """Medians (ms) of `fn` and `reference` timed alternately, and the median of their
    per-pair ratio: a figure that holds while the machine's load changes."""
    for _ in range(warmup):
        fn()
        reference()
    own, ref, ratios = [], [], []
    for _ in range(max(1, runs)):
        start = time.perf_counter()
        fn()
        middle = time.perf_counter()
        reference()
        end = time.perf_counter()
        own.append(middle - start)
        ref.append(end - middle)
        ratios.append((middle - start) / (end - middle))
    return (
        statistics.median(own) * 1000,
        statistics.median(ref) * 1000,
        statistics.median(ratios),
    )


def bench_formatting(runs: int) -> dict[str, Any]:
    """Median per-answer times (ms) of `format_answer` with all three renderings and of
    `html.escape` over 9 KB of text, timed alternately, their ratio, and the parts."""
    resolved = resolved_bench_answer()
    answer = resolved.answer
    formatted = format_answer(resolved)
    sources = format_sources(answer.sources, resolved.scores, resolved.extraction)
    layout = build_layout(resolved, sources)
    text_9kb = (answer.text * (9000 // len(answer.text) + 1))[:9000]
    total, escape, ratio = paired_ms(
        lambda: format_answer(resolved), lambda: html.escape(text_9kb, quote=True), runs
    )
    result: dict[str, Any] = {
        "words": len(answer.text.split()),
        "citations": len(formatted.citations),
        "sources": len(formatted.sources),
        "units": len(formatted.answer_units.units),
        "verbatim_units": sum(
            u.kind == "verbatim" for u in formatted.answer_units.units
        ),
        "html_bytes": len((formatted.renderings.html or "").encode()),
        "format_answer_ms": total,
        "escape_9kb_ms": escape,
        "format_over_escape": ratio,
        "sources_ms": median_ms(
            lambda: format_sources(
                answer.sources, resolved.scores, resolved.extraction
            ),
            runs,
            warmup=20,
        ),
        "layout_ms": median_ms(lambda: build_layout(resolved, sources), runs, warmup=20),
    }
    for name, render in RENDERERS.items():
        result[f"{name}_ms"] = median_ms(partial(render, layout), runs, warmup=20)
    result["budget_ms"] = BUDGET_MS
    result["within_budget"] = total <= BUDGET_MS
    return result


if __name__ == "__main__":
    print(orjson.dumps(bench_formatting(2000), option=orjson.OPT_INDENT_2).decode())
