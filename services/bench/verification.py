"""`citeflow bench verification`: what the support verification costs per answer.

Inputs: the corpus's ExpertQA answers (each doc a source of one chunk) and the benchmark
answer, taken through the real upstream stages (ingest, scoring, citations) once. Timed: the
verification alone, cold each run (source views and indexes forgotten, fresh locators: every
answer of real traffic brings new chunks): in the spans stage `citation_support` (claims,
source views, lexical judge, better sources, ALCE quality, evidence spans), in the citations
stage the better-source search for sentences citing one source (`add_rivals`); beside the
whole spans stage (`resolve_answer`, verification included) and the whole in-process
pipeline on the same answers. (The passages' check counts are found in the same pass as the
passages themselves, so their share of the citations stage is not timed apart.)
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
from services.citations.passages import PassageFinder
from services.citations.passages import clear_memo as clear_indexes
from services.citations.rivals import add_rivals
from services.ingest.answers import admit_data
from services.pipeline import process_answer
from services.scoring.logic import score_answer
from services.spans.locators import Locators
from services.spans.logic import resolve_answer
from services.spans.search import QuoteFinder
from services.spans.sections import SectionIndex
from services.spans.support import citation_support
from services.spans.units import UnitContext, sentence_units, upstream_units
from services.text.extraction import extract_answer
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
        answer, cited.extraction, QuoteFinder(index.pieces), index, Locators(), []
    )
    units = upstream_units(ctx, answer.answer_units) if answer.answer_units else (
        sentence_units(ctx)
    )

    def cold() -> None:
        clear_memo()
        ctx.locators = Locators()

    return (lambda: citation_support(ctx, index.pieces, units, LEXICAL)), cold


def _rivals_call(data: dict[str, Any]) -> tuple[Callable[[], object], Callable[[], None]]:
    """The citations stage's better-source search of one answer as a call, and what makes
    its next run cold (every index forgotten; the passages found again, untimed)."""
    admitted = admit_data(orjson.dumps(data), event_id=data["answer_id"])
    if not isinstance(admitted, AnswerAccepted):
        raise RuntimeError(f"benchmark answer rejected: {admitted.message}")
    answer = admitted.answer
    scored = score_answer(admitted)
    extracted = extract_answer(answer)
    state: list[tuple[PassageFinder, list[dict[str, Any]]]] = []

    def cold() -> None:
        clear_indexes()
        finder = PassageFinder(extracted, answer.sources, scored.passage_sources)
        state[:] = [(finder, finder.passages())]

    def call() -> None:
        finder, values = state[0]
        add_rivals(finder, values, answer.sources)

    return call, cold


def _per_answer(
    events: list[AnswerCited], answers: list[dict[str, Any]], runs: int
) -> dict[str, float]:
    """Median wall ms and mean CPU ms per answer of the verification (both stages' parts),
    and median wall ms of the spans stage, over `runs` rounds of every answer."""
    calls = [
        (_verification_call(cited), _rivals_call(data))
        for cited, data in zip(events, answers, strict=True)
    ]
    walls: list[float] = []
    cpu = rivals_cpu = 0.0
    for (call, cold), (rivals, rivals_cold) in calls:
        cold()
        call()  # warm-up: the lexical vocabulary is learnt once per process
        rivals_cold()
        rivals()
    for _ in range(runs):
        for (call, cold), (rivals, rivals_cold) in calls:
            cold()
            rivals_cold()
            started_cpu = time.process_time()
            started = time.perf_counter()
            rivals()
            searched_cpu = time.process_time()
            call()
            walls.append((time.perf_counter() - started) * 1000)
            done_cpu = time.process_time()
            rivals_cpu += searched_cpu - started_cpu
            cpu += done_cpu - started_cpu
    spans = [
        median_ms(partial(resolve_answer, cited), runs, before=clear_memo)
        for cited in events
    ]
    return {
        "answers": len(events),
        "verification_ms": statistics.median(walls),
        "verification_cpu_ms": cpu * 1000 / (runs * len(events)),
        "rivals_cpu_ms": rivals_cpu * 1000 / (runs * len(events)),
        "spans_stage_ms": statistics.median(spans),
    }


def bench_verification(answers_dir: Path | None, runs: int) -> dict[str, Any]:
    """Verification cost on the ExpertQA answers (when `answers_dir` has them) and on the
    benchmark answer, beside the spans stage and the whole pipeline."""
    figures: dict[str, Any] = {"target_ms": TARGET_MS}
    sets: dict[str, list[dict[str, Any]]] = {"section7": [bench_answer("bench-verify")]}
    if answers_dir is not None and (answers_dir / "expertqa_cited_answers.json").exists():
        sets["expertqa"] = expertqa_answers(answers_dir)
    for name, answers in sets.items():
        events = [cited_event(data) for data in answers]
        figure = _per_answer(events, answers, runs)
        raw = [orjson.dumps(data) for data in answers]
        figure["pipeline_ms"] = statistics.median(
            median_ms(partial(process_answer, r, event_id="bench"), runs, before=clear_memo)
            for r in raw
        )
        figures[name] = figure
    return figures
