"""Server-Sent Events frames: each outcome encoded once into bytes every client shares.

An outcome event is `id: <position>` + `event: <status>` + one `data:` line of JSON:
`{answer_id, tenant, status, model, event_id, event_time, summary, result, reason,
detail}` where `result` is the `answer.formatted` data (null for failures), embedded as
the record's own JSON bytes (never parsed and re-written). The `summary` view (what a
dashboard lists; the full result is one GET away) is the same without `result`: both are
encoded once per record. A model judge's second opinion is `event: judged`, data `{answer_id, tenant, status,
event_id, event_time, judge, disagreements, judgement}` (`judgement`: the `answer.judged`
data), streamed to the clients the answer's formatted result goes to. Control events
(`status`,
`error`, `overflow`) carry no `id:`, so a client's Last-Event-ID stays on the last outcome
it received; heartbeats are SSE comments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from services.store.api import AnswerRecord, Judgement, ResultUpdate, Status, Summary

CONTENT_TYPE = b"text/event-stream; charset=utf-8"
HEARTBEAT = b": keep-alive\n\n"


@dataclass(slots=True, eq=False)
class Frame:
    """One outcome as an SSE event, with what filters and deduplication read."""

    topic: str
    partition: int
    offset: int
    event_id: str
    answer_id: str
    tenant: str
    model: str | None
    status: Status
    summary: Summary | None
    position: str  # the SSE id: the hub's offset vector as of this record
    body: bytes  # the event without its id line
    wire: bytes  # id line + body: what an in-sync client is sent
    lean_body: bytes  # the same in the summary view (without `result`)
    lean_wire: bytes

    def data(self, full: bool) -> bytes:
        """What an in-sync client of the full or the summary view is sent."""
        return self.wire if full else self.lean_wire

    def with_position(self, position: str, full: bool) -> bytes:
        """The event under another id (for a client whose position is ahead of the hub's)."""
        return _id_line(position) + (self.body if full else self.lean_body)


def update_frame(update: ResultUpdate, position: str) -> Frame:
    """The frame of an outcome the hub read from Kafka."""
    return _frame(
        update.position.topic, update.position.partition, update.position.offset,
        update.event_id, update.answer_id, update.tenant, update.model, update.status,
        update.summary, position,
        _data(update.answer_id, update.tenant, update.status, update.model, update.event_id,
              update.event_time, update.summary, update.result, update.reason, update.detail),
    )


def record_frame(record: AnswerRecord, position: str) -> Frame:
    """The frame of a row read back from the store (a resuming client's catch-up)."""
    assert record.position is not None  # rows from `since` always have one
    return _frame(
        record.position.topic, record.position.partition, record.position.offset,
        record.event_id or "", record.answer_id, record.tenant, record.model, record.status,
        record.summary, position,
        _data(record.answer_id, record.tenant, record.status, record.model, record.event_id,
              record.updated_at, record.summary, record.result, record.reason, record.detail),
    )


def judgement_frame(judgement: Judgement, position: str) -> Frame:
    """The frame of a model judge's opinion (the same in both views: it has no result)."""
    data = _one_line(orjson.dumps({
        "answer_id": judgement.answer_id, "tenant": judgement.tenant, "status": "formatted",
        "event_id": judgement.event_id, "event_time": judgement.event_time,
        "judge": judgement.judge, "disagreements": judgement.disagreements,
        "judgement": orjson.Fragment(judgement.judged),
    }))
    body = b"event: judged\ndata: " + data + b"\n\n"
    wire = _id_line(position) + body
    return Frame(judgement.position.topic, judgement.position.partition,
                 judgement.position.offset, judgement.event_id, judgement.answer_id,
                 judgement.tenant, None, "formatted", None, position, body, wire, body, wire)


def control(event: str, data: Mapping[str, Any], retry_ms: int | None = None) -> bytes:
    """A control event (no id). `retry_ms` sets the client's reconnection delay."""
    retry = b"retry: %d\n" % retry_ms if retry_ms is not None else b""
    return retry + b"event: " + event.encode() + b"\ndata: " + _one_line(
        orjson.dumps(data, default=str)) + b"\n\n"


def _frame(topic: str, partition: int, offset: int, event_id: str, answer_id: str,
           tenant: str, model: str | None, status: Status, summary: Summary | None,
           position: str, data: tuple[bytes, bytes]) -> Frame:
    id_line = _id_line(position)
    body = b"event: " + status.encode() + b"\ndata: " + data[0] + b"\n\n"
    wire = id_line + body
    if data[1] is data[0]:
        return Frame(topic, partition, offset, event_id, answer_id, tenant, model, status,
                     summary, position, body, wire, body, wire)
    lean = b"event: " + status.encode() + b"\ndata: " + data[1] + b"\n\n"
    return Frame(topic, partition, offset, event_id, answer_id, tenant, model, status,
                 summary, position, body, wire, lean, id_line + lean)


def _data(answer_id: str, tenant: str, status: Status, model: str | None,
          event_id: str | None, event_time: datetime, summary: Summary | None,
          result: bytes | None, reason: str | None,
          detail: Mapping[str, Any] | None) -> tuple[bytes, bytes]:
    """The JSON of the full view and of the summary view (the same object when there is
    no result)."""
    payload: dict[str, Any] = {
        "answer_id": answer_id,
        "tenant": tenant,
        "status": status,
        "model": model,
        "event_id": event_id,
        "event_time": event_time,
        "summary": summary,
        "result": None,
        "reason": reason,
        "detail": detail,
    }
    # default=str: a detail value orjson cannot write becomes its text, never an error.
    lean = _one_line(orjson.dumps(payload, default=str))
    if result is None:
        return lean, lean
    payload["result"] = orjson.Fragment(result)
    return _one_line(orjson.dumps(payload, default=str)), lean


def _one_line(data: bytes) -> bytes:
    """A `data:` field ends at a line break: JSON's only line breaks are whitespace
    between tokens (inside strings they are escaped), so they become spaces."""
    if b"\n" in data or b"\r" in data:
        return data.replace(b"\r", b" ").replace(b"\n", b" ")
    return data


def _id_line(position: str) -> bytes:
    return b"id: " + position.encode("ascii") + b"\n"
