"""Shared by the stream tests: real outcome records (the real pipeline's formatted data,
the real envelope and dead-letter encoders), an SSE reader, a uvicorn server on a free
port, and an in-memory store with `since` (unit tests only)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import httpx
import orjson
import uvicorn

from schemas.formatted import AnswerFormatted
from services.broker import free_port
from services.gateway.stream.hub import Hub, record_of
from services.runtime.stage import Message
from services.store.api import AnswerRecord, Positions, ResultUpdate, Status
from services.store.decode import decode_record
from tests.services.gateway.fakes import FakeStore
from tests.services.store import records

TIME = "2026-11-25T10:00:00.000Z"
FORMATTED = ("answers.formatted", 0)


@cache
def _base() -> AnswerFormatted:
    return records.formatted_model(records.answer("base"))


def formatted(answer_id: str, offset: int, partition: int = 0, tenant: str = "acme",
              model: str = "gpt-x", event_id: str | None = None,
              **changes: Any) -> Message:
    """An answers.formatted record of a real formatted result under another answer id."""
    data = _base().model_copy(update={"answer_id": answer_id,
                                      "metadata": {"tenant": tenant, "model": model},
                                      **changes})
    value = records.event_bytes(data, answer_id, TIME, event_id or f"fmt-{answer_id}")
    return Message("answers.formatted", value, answer_id.encode(), partition, offset)


def rejected(answer_id: str, offset: int, tenant: str = "acme") -> Message:
    return records.rejected(records.answer(answer_id, tenant=tenant), TIME, offset)


def dead_lettered(answer_id: str, offset: int, tenant: str = "acme") -> Message:
    return records.dead_lettered(records.answer(answer_id, tenant=tenant), TIME, offset)


class FedHub(Hub):
    """A hub whose records the test hands over (`publish`) instead of a Kafka feed: what
    the app's lifespan starts is the ticker alone."""

    async def start(self) -> None:
        if not self._tasks:
            self._tasks = [asyncio.create_task(self._tick())]


def attach(hub: Hub, partitions: Iterable[tuple[str, int]] = (FORMATTED,),
           before: int = -1) -> None:
    """What the feed tells the hub when it has assigned `partitions` (no history)."""
    for tp in partitions:
        hub._on_partition(tp, before, before + 1)
    hub.feed.state = "live"
    hub._on_caught_up()


@dataclass
class Event:
    event: str
    data: str
    id: str | None

    def json(self) -> Any:
        return orjson.loads(self.data)


def parse_events(text: str) -> list[Event]:
    """SSE events of a complete text (comments skipped)."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            fields[name] = fields[name] + "\n" + value if name in fields else value
        if "event" in fields or "data" in fields:
            events.append(Event(fields.get("event", "message"), fields.get("data", ""),
                                fields.get("id")))
    return events


async def read_events(response: httpx.Response) -> AsyncIterator[Event]:
    """SSE events as they arrive on a streaming response."""
    buffer = ""
    async for chunk in response.aiter_text():
        buffer += chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            for event in parse_events(block + "\n\n"):
                yield event


@contextlib.asynccontextmanager
async def serve(app: Any) -> AsyncIterator[str]:
    """Run `app` under uvicorn on a free loopback port; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


class SinceStore(FakeStore):
    """FakeStore plus `since` over rows added with `put` (latest state per answer)."""

    def __init__(self) -> None:
        super().__init__()
        # (answer id, tenant)s, oldest change first
        self.order: list[tuple[str, str]] = []

    def put(self, message: Message) -> AnswerRecord:
        update = decode_record(message)
        assert isinstance(update, ResultUpdate)
        record = record_of(update)
        key = (update.answer_id, update.tenant)
        self.answers[key] = record
        if key in self.order:
            self.order.remove(key)
        self.order.append(key)
        return record

    async def since(self, positions: Positions, tenant: str | None,
                    statuses: frozenset[Status], limit: int) -> list[AnswerRecord]:
        self._check()
        found = []
        for key in self.order:
            record = self.answers[key]
            p = record.position
            if p is None or p.offset <= positions.get((p.topic, p.partition), -1):
                continue
            if record.status in statuses and tenant in (None, record.tenant):
                found.append(replace(record))
        return found[:limit]
