"""The seam between stage logic and Kafka I/O.

A stage is a plain callable from one inbound message to a list of outputs. It knows
nothing of Kafka: the runtime loop (or the in-memory transport of the tests and of
`citeflow process`) feeds it messages and delivers what it returns. A stage that waits on
I/O (a model judge over HTTP) also has a coroutine handler, which the loop awaits for
several records at once instead of calling the plain one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeVar, cast

from pydantic import BaseModel

from schemas.envelope import Event, EventDecodeError, decode
from schemas.trusted import decode_written_here, trusted_parts

In = TypeVar("In", bound=BaseModel)


class Message(NamedTuple):
    """One inbound record, transport-neutral (a NamedTuple: one is built per record)."""

    topic: str
    value: bytes
    key: bytes | None = None
    partition: int = 0
    offset: int = 0
    headers: Sequence[tuple[str, bytes]] = ()
    # The record's Kafka timestamp (ms since the epoch); set by the sink runner only (the
    # time of a dead letter, which has no event time of its own), None on the stage path.
    timestamp_ms: int | None = None

    @property
    def position(self) -> str:
        """`topic:partition:offset`, the identity of a record without a readable event id."""
        return f"{self.topic}:{self.partition}:{self.offset}"


class Output(NamedTuple):
    """One event a stage wants published.

    `cause_id` is the id of the event (or the record position) that produced it; the
    runtime derives the output's event id from it, so re-processing after a crash
    produces the same ids.
    """

    topic: str
    data: BaseModel
    subject: str
    cause_id: str
    traceparent: str | None = None


# A stage's coroutine handler (`Stage.handle_async`).
AsyncHandler = Callable[[Message], Awaitable[list[Output]]]


class PermanentError(Exception):
    """The message can never be processed: dead-letter it at once, no retries."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class TransientError(Exception):
    """A failure that may pass (a dependency unavailable): retry with backoff."""


class SinkWriter(Protocol):
    """Writes decoded values; raises TransientError while the database is unreachable."""

    async def write(self, values: Sequence[Any]) -> None:
        """Write every value in one transaction (all or nothing)."""

    async def close(self) -> None: ...


@dataclass(frozen=True)
class Sink:
    """What makes a Stage a sink (run by services.runtime.sink): a pure record decoder
    (raising on a record it cannot read, which is dead-lettered) and a factory of the writer
    (raising TransientError while the database is unreachable; it is retried)."""

    decode: Callable[[Message], Any | None]
    open_writer: Callable[[], Awaitable[SinkWriter]]


@dataclass(frozen=True)
class Stage:
    """A named stage: the topics it reads and writes, and its message handler."""

    name: str
    input_topics: tuple[str, ...]
    output_topics: tuple[str, ...]
    handle: Callable[[Message], list[Output]]
    # Extra config a stage may declare (e.g. the documents store root); not used by the loop.
    description: str = ""
    tags: tuple[str, ...] = field(default=())
    # Set for a sink: records end in a database, not on topics.
    sink: Sink | None = None
    # Prometheus collectors of the stage's own (e.g. a model judge's), served with the
    # runtime's metrics.
    collectors: tuple[Any, ...] = ()
    # A coroutine handler (set by `async_typed_stage`): the loop awaits it for each record
    # as it is fetched, at most `concurrency` records in flight, instead of calling `handle`.
    handle_async: AsyncHandler | None = None
    concurrency: int = 1


def decode_input(message: Message, model: type[BaseModel]) -> Event:
    """Decode an internal-topic message, turning any decode error into a PermanentError
    (an unreadable or unknown-version event on an internal topic is a dead letter).

    A record a stage of this pipeline wrote (its checksum header matches) is rebuilt without
    validation (`schemas.trusted`); any other is validated in full."""
    parts = trusted_parts(message.value, message.headers)
    if parts is not None:
        event = decode_written_here(message.value, model, parts)
        if event is not None:
            return event
    return validated_input(message, model)


def validated_input(message: Message, model: type[BaseModel]) -> Event:
    """`decode_input` without the trusted path: the record validated in full."""
    try:
        return decode(message.value, expected=model)
    except EventDecodeError as exc:
        raise PermanentError(exc.code, exc.message) from None


def typed_stage(
    name: str,
    input_topic: str,
    input_model: type[In],
    output_topic: str,
    logic: Callable[[In], BaseModel],
    description: str = "",
) -> Stage:
    """A stage whose logic maps one validated event payload to one output payload."""

    def handle(message: Message) -> list[Output]:
        event = decode_input(message, input_model)
        try:
            data = logic(cast(In, event.data))
        except Exception:
            # A record that carried a matching checksum was not validated: when the logic
            # fails on it, validating it tells a poison record (a dead letter naming the
            # field) from a failure of the logic itself (raised as it was).
            validated_input(message, input_model)
            raise
        return [
            Output(
                topic=output_topic,
                data=data,
                subject=event.subject,
                cause_id=event.id,
                traceparent=event.traceparent,
            )
        ]

    return Stage(name, (input_topic,), (output_topic,), handle, description)


def async_typed_stage(
    name: str,
    input_topic: str,
    input_model: type[In],
    output_topic: str,
    logic: Callable[[In], Awaitable[BaseModel]],
    concurrency: int,
    description: str = "",
) -> Stage:
    """`typed_stage` for a coroutine `logic` (one that waits on I/O). The runtime loop awaits
    it for up to `concurrency` records in flight; the stage's plain `handle` runs one message
    to completion on an event loop of its own, for callers without one (tests, scripts)."""

    async def handle_async(message: Message) -> list[Output]:
        event = decode_input(message, input_model)
        try:
            data = await logic(cast(In, event.data))
        except Exception:
            validated_input(message, input_model)  # a poison record: as in typed_stage
            raise
        return [Output(output_topic, data, event.subject, event.id, event.traceparent)]

    def handle(message: Message) -> list[Output]:
        return asyncio.run(handle_async(message))

    return Stage(name, (input_topic,), (output_topic,), handle, description,
                 handle_async=handle_async, concurrency=max(1, concurrency))

