"""Toy stages for `citeflow bench e2e --stages toy`: the runtime's own cost.

Five hops with the pipeline's topics, each doing the least an honest stage does: decode and
validate the `answer.submitted` event (the same typed decode the real stages use) and hand the
validated payload back as its output, which the runtime wraps in a new event (derived id,
headers) and re-encodes. No stage logic, so the gap to the raw pass-through is the runtime's
own overhead plus one decode/validate/encode per hop.
"""

from __future__ import annotations

from schemas.answers import AnswerSubmitted
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


def _hop(name: str, source: str, target: str) -> Stage:
    def handle(message: Message) -> list[Output]:
        event = decode_input(message, AnswerSubmitted)
        return [Output(target, event.data, event.subject, event.id, event.traceparent)]

    return Stage(f"toy-{name}", (source,), (target,), handle, f"toy {name}")


# Module-level stages, loadable as `services.bench.toy:<hop>` by `citeflow run`.
ingest, scoring, citations, spans, formatting = (_hop(*hop) for hop in HOPS)
SPECS = [f"services.bench.toy:{name}" for name, _, _ in HOPS]
