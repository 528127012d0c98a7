"""Toy stages for runtime tests: the five hops of the pipeline with trivial logic.

Each hop reads an `answer.submitted` event and passes it on with its name appended to
`metadata.hops`. Answer ids steer failures: `poison-*` raises on every attempt,
`flaky-*` raises TransientError on the first attempt in each process, `reject-*` is
rejected by the first hop. `TOY_DELAY_MS` slows every message (for kill tests).
"""

from __future__ import annotations

import base64
import os
import time

from schemas.answers import AnswerRejected, AnswerSubmitted
from schemas.envelope import EventDecodeError, decode
from schemas.topics import ANSWERS_REJECTED
from services.bench.toy import HOPS
from services.runtime.stage import Message, Output, Stage, TransientError, decode_input

_seen_flaky: set[str] = set()


def _hop(name: str, source: str, target: str) -> Stage:
    def handle(message: Message) -> list[Output]:
        delay = int(os.environ.get("TOY_DELAY_MS", "0"))
        if delay:
            time.sleep(delay / 1000)
        if name == "ingest":
            try:
                event = decode(message.value, expected=AnswerSubmitted)
            except EventDecodeError as exc:
                return [_rejection(message, exc.code, exc.message, exc.subject)]
        else:
            event = decode_input(message, AnswerSubmitted)
        answer = event.data
        assert isinstance(answer, AnswerSubmitted)
        if answer.answer_id.startswith("reject-") and name == "ingest":
            text = "rejected by the toy ingest"
            return [_rejection(message, "toy_rejected", text, answer.answer_id)]
        if answer.answer_id.startswith("poison-") and name == "scoring":
            raise ValueError(f"poison answer {answer.answer_id}")
        if answer.answer_id.startswith("flaky-") and answer.answer_id not in _seen_flaky:
            _seen_flaky.add(answer.answer_id)
            raise TransientError("flaky dependency")
        metadata = dict(answer.metadata or {})
        metadata["hops"] = [*metadata.get("hops", []), name]
        passed = answer.model_copy(update={"metadata": metadata})
        return [Output(target, passed, event.subject, event.id, event.traceparent)]

    return Stage(f"toy-{name}", (source,), (target,), handle, f"toy {name}")


def _rejection(message: Message, code: str, text: str, answer_id: str | None) -> Output:
    data = AnswerRejected(
        answer_id=answer_id,
        code=code,
        message=text,
        path="$",
        original_base64=base64.b64encode(message.value).decode(),
        original_topic=message.topic,
        original_partition=message.partition,
        original_offset=message.offset,
        size_bytes=len(message.value),
    )
    return Output(ANSWERS_REJECTED, data, answer_id or message.position, message.position)


# Module-level stages, loadable as `tests.integration.toy_stages:<hop>` by `citeflow run`.
ingest, scoring, citations, spans, formatting = (_hop(*hop) for hop in HOPS)
SPECS = [f"tests.integration.toy_stages:{name}" for name, _, _ in HOPS]
