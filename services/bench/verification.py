"""`citeflow bench verification`: what the support verification costs per answer.

Inputs: the corpus's ExpertQA answers (each doc a source of one chunk) and the SPEC §7
answer, taken through the real upstream stages (ingest, scoring, citations) once. Timed: the
verification alone (`citation_support`: claims, source views, lexical judge, better sources,
ALCE quality, evidence spans), cold each run (source views forgotten, fresh locators: every
answer of real traffic brings new chunks), beside the whole spans stage (`resolve_answer`,
verification included) and the whole in-process pipeline on the same answers.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from schemas.answers import AnswerAccepted
from schemas.citations import AnswerCited
from services.bench.timing import median_ms
from services.bench.workload import bench_answer
from services.citations.logic import cite_answer
from services.ingest.answers import admit_data
from services.pipeline import process_answer
from services.scoring.logic import score_answer
from services.spans.locators import Locators
from services.spans.logic import resolve_answer
from services.spans.search import QuoteFinder
from services.spans.sections import SectionIndex
from services.spans.support import citation_support
from services.spans.units import UnitContext, sentence_units, upstream_units
from services.verification.judges import LEXICAL
from services.verification.sources import clear_memo

TARGET_MS = 0.3


def expertqa_answers(answers_dir: Path) -> list[dict[str, Any]]:
    """The ExpertQA answers as `answer.submitted` data (one source per doc)."""
    records = json.loads((answers_dir / "expertqa_cited_answers.json").read_text("utf-8"))
    return [
        {
            "answer_id": f"expertqa-{number}",
            "query": record["question"],
            "text": record["answer"],
            "sources": [
                {"index": doc["n"], "kind": "web", "url": doc["url"],
                 "chunks": [{"text": doc["text"]}]}
                for doc in record["docs"]
            ],
        }
        for number, record in enumerate(records["records"])
    ]


def cited_event(data: dict[str, Any]) -> AnswerCited:
    """`data` as the citations stage publishes it."""
    admitted = admit_data(orjson.dumps(data), event_id=data["answer_id"])
    if isinstance(admitted, AnswerAccepted):
        return cite_answer(score_answer(admitted))
    raise RuntimeError(f"benchmark answer rejected: {admitted.message}")


def _verification_call(cited: AnswerCited) -> tuple[Callable[[], object], Callable[[], None]]:
    """The verification of one answer as a call, and what makes its next run cold."""
    answer = cited.answer
    index = SectionIndex.from_sources(answer.sources)
    ctx = UnitContext(
        answer, cited.extraction, QuoteFinder(index.pieces), index.pieces, Locators(), []
    )
    units = upstream_units(ctx, answer.answer_units) if answer.answer_units else (
        sentence_units(ctx)
    )

    def cold() -> None:
        clear_memo()
        ctx.locators = Locators()

    return (lambda: citation_support(ctx, index.pieces, units, LEXICAL)), cold


def _per_answer(events: list[AnswerCited], runs: int) -> dict[str, float]:
    """Median wall ms and mean CPU ms per answer of the verification, and median wall ms of
    the spans stage, over `runs` rounds of every answer."""
    calls = [_verification_call(cited) for cited in events]
    walls: list[float] = []
    cpu = 0.0
    for call, cold in calls:
        cold()
        call()  # warm-up: the lexical vocabulary is learnt once per process
    for _ in range(runs):
        for call, cold in calls:
            cold()
            started_cpu = time.process_time()
            started = time.perf_counter()
            call()
            walls.append((time.perf_counter() - started) * 1000)
            cpu += time.process_time() - started_cpu
    spans = [
        median_ms(partial(resolve_answer, cited), runs, before=clear_memo)
        for cited in events
    ]
    return {
        "answers": len(events),
        "verification_ms": statistics.median(walls),
        "verification_cpu_ms": cpu * 1000 / (runs * len(events)),
        "spans_stage_ms": statistics.median(spans),
    }


def bench_verification(answers_dir: Path | None, runs: int) -> dict[str, Any]:
    """Verification cost on the ExpertQA answers (when `answers_dir` has them) and on the
    SPEC §7 answer, beside the spans stage and the whole pipeline."""
    figures: dict[str, Any] = {"target_ms": TARGET_MS}
    sets: dict[str, list[dict[str, Any]]] = {"section7": [bench_answer("bench-verify")]}
    if answers_dir is not None and (answers_dir / "expertqa_cited_answers.json").exists():
        sets["expertqa"] = expertqa_answers(answers_dir)
    for name, answers in sets.items():
        events = [cited_event(data) for data in answers]
        figure = _per_answer(events, runs)
        raw = [orjson.dumps(data) for data in answers]
        figure["pipeline_ms"] = statistics.median(
            median_ms(partial(process_answer, r, event_id="bench"), runs, before=clear_memo)
            for r in raw
        )
        figures[name] = figure
    return figures
