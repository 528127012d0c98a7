"""`citeflow bench memory`: stage memory stays flat over many events.

Every stage handler runs behind the same seam the Kafka runtime uses (bytes in, encoded
events out), over distinct answers, and the resident set size is sampled as it goes. Every
answer brings new source chunks and a new word, as real traffic does, so the stages' memos
(chunk statistics, passage indexes, the word-to-term memo) fill to their bounds: the rise
while they fill is reported apart from the growth after (the target).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from typing import Any

import orjson

from schemas.answers import AnswerSubmitted
from schemas.envelope import encode, make_event
from services.bench.workload import bench_answer
from services.runtime.loop import output_record
from services.runtime.stage import Message, Output
from services.stages import all_stages

_PAGE = os.sysconf("SC_PAGE_SIZE")
# The first RSS reading, once imports and first allocations are done and before the memos
# have filled.
_STARTED_AFTER = 100


def rss_bytes() -> int:
    """Resident set size of this process."""
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[1]) * _PAGE


def _encode(stage: str, output: Output) -> Message:
    """The record the runtime publishes for `output` (checksum header included), as the
    next stage's input."""
    record = output_record(stage, output)
    return Message(topic=record.topic, value=record.value, key=record.key,
                   headers=tuple(record.headers))


def run(events: int, samples: int = 10, progress: Callable[[int], None] | None = None
        ) -> dict[str, Any]:
    """Push `events` distinct answers through all five stage handlers; RSS per sample."""
    stages = all_stages()
    by_topic = {topic: stage for stage in stages.values() for topic in stage.input_topics}
    every = max(1, events // samples)
    series: list[tuple[int, int]] = []
    start = 0
    for number in range(events):
        answer = bench_answer(f"mem-{number}", words=300, citations=15, sources=4,
                              chunk_chars=600, verbatim_units=6, seed=number)
        # A fresh word per answer too, so the word memo must stay bounded as well.
        answer["text"] = f"Item {number} says: " + answer["text"]
        event = make_event(AnswerSubmitted.model_validate(answer), subject=answer["answer_id"],
                           source="bench")
        pending = [Message(topic="answers.submitted", value=encode(event),
                           key=answer["answer_id"].encode(), offset=number)]
        while pending:
            message = pending.pop()
            stage = by_topic.get(message.topic)
            if stage is not None:
                pending.extend(_encode(stage.name, out) for out in stage.handle(message))
        if number == _STARTED_AFTER - 1:
            gc.collect()
            start = rss_bytes()
        if (number + 1) % every == 0:
            gc.collect()
            series.append((number + 1, rss_bytes()))
            if progress:
                progress(number + 1)
    baseline = series[0][1]
    peak_after = max(rss for _, rss in series)
    return {
        "events": events,
        "start_mib": round(start / 2**20, 1),
        "series_mib": [(n, round(rss / 2**20, 1)) for n, rss in series],
        "baseline_mib": round(baseline / 2**20, 1),
        "final_mib": round(series[-1][1] / 2**20, 1),
        "growth": (peak_after - baseline) / baseline,
        "answer_bytes": len(orjson.dumps(answer)),
    }
