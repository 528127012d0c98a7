"""Floor stages for `citeflow bench e2e --stages toy|codec`: what the pipeline costs before
any stage logic.

- `toy`: five hops with the pipeline's topics, each doing the least an honest stage does:
  decode the `answer.submitted` event (the same typed decode the real stages use: validated
  at the first hop, rebuilt without validation after, as written by a stage) and hand the
  payload back, which the runtime wraps in a new event (derived id, headers, checksum) and
  re-encodes. The gap to the raw pass-through is the runtime's own overhead plus one small
  decode/encode per hop.
- `codec`: each hop decodes the real event type of its input topic as the real stages do
  (a record a stage wrote is parsed and its parts rebuilt only as read: here none are) and
  publishes the real event of its output topic (built once per process by the in-process
  pipeline from an e2e-shaped answer), so every hop pays the real message sizes on both
  sides. No stage logic: the gap to the raw pass-through is runtime plus codec, the part of
  the pipeline's cost that faster stage logic cannot remove.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import orjson
from pydantic import BaseModel

from schemas.answers import AnswerAccepted, AnswerSubmitted
from schemas.citations import AnswerCited
from schemas.scoring import AnswerScored
from schemas.spans import AnswerResolved
from schemas.topics import (
    ANSWERS_ACCEPTED,
    ANSWERS_CITED,
    ANSWERS_FORMATTED,
    ANSWERS_RESOLVED,
    ANSWERS_SCORED,
    ANSWERS_SUBMITTED,
)
from services.runtime.stage import Message, Output, Stage, decode_input

HOPS = (
    ("ingest", ANSWERS_SUBMITTED, ANSWERS_ACCEPTED),
    ("scoring", ANSWERS_ACCEPTED, ANSWERS_SCORED),
    ("citations", ANSWERS_SCORED, ANSWERS_CITED),
    ("spans", ANSWERS_CITED, ANSWERS_RESOLVED),
    ("formatting", ANSWERS_RESOLVED, ANSWERS_FORMATTED),
)
# The payload type each codec hop validates its input as, in hop order.
INPUT_TYPES: tuple[type[BaseModel], ...] = (
    AnswerSubmitted, AnswerAccepted, AnswerScored, AnswerCited, AnswerResolved,
)


@cache
def real_events() -> tuple[BaseModel, ...]:
    """The events after each of the five hops for one e2e-shaped answer."""
    from services.bench.e2e import ANSWER_SHAPE
    from services.bench.workload import bench_answer
    from services.citations.logic import cite_answer
    from services.formatting.logic import format_answer
    from services.ingest.answers import admit_data
    from services.scoring.logic import score_answer
    from services.spans.logic import resolve_answer

    admitted = admit_data(orjson.dumps(bench_answer(**ANSWER_SHAPE)), event_id="codec")
    assert isinstance(admitted, AnswerAccepted)
    scored = score_answer(admitted)  # as the stage writes it: its extraction carried
    cited = cite_answer(scored)
    resolved = resolve_answer(cited)
    return admitted, scored, cited, resolved, format_answer(resolved)


def _stage(name: str, source: str, target: str,
           handle: Callable[[Message], list[Output]], kind: str) -> Stage:
    return Stage(f"{kind}-{name}", (source,), (target,), handle, f"{kind} {name}")


def _toy_hop(index: int) -> Stage:
    name, source, target = HOPS[index]

    def handle(message: Message) -> list[Output]:
        event = decode_input(message, AnswerSubmitted)
        return [Output(target, event.data, event.subject, event.id, event.traceparent)]

    return _stage(name, source, target, handle, "toy")


def _codec_hop(index: int) -> Stage:
    name, source, target = HOPS[index]
    input_type = INPUT_TYPES[index]

    def handle(message: Message) -> list[Output]:
        event = decode_input(message, input_type)
        output = real_events()[index]
        return [Output(target, output, event.subject, event.id, event.traceparent)]

    return _stage(name, source, target, handle, "codec")


# Module-level stages, loadable as `services.bench.toy:<hop>` / `:codec_<hop>` by `citeflow run`.
ingest, scoring, citations, spans, formatting = (_toy_hop(i) for i in range(len(HOPS)))
(codec_ingest, codec_scoring, codec_citations, codec_spans,
 codec_formatting) = (_codec_hop(i) for i in range(len(HOPS)))
SPECS = [f"services.bench.toy:{name}" for name, _, _ in HOPS]
CODEC_SPECS = [f"services.bench.toy:codec_{name}" for name, _, _ in HOPS]
