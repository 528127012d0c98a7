"""What the operator commands do: submit, tail, replay; find the dead-letter topics."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson
from aiokafka import ConsumerRecord
from pydantic import ValidationError

from schemas.answers import AnswerSubmitted
from schemas.envelope import encode, headers_for, make_event
from schemas.topics import ANSWERS_SUBMITTED
from services.runtime.config import RuntimeConfig
from services.runtime.dead_letters import Record, is_marker, read_dead_letter
from services.runtime.kafka import make_consumer
from services.runtime.topic_io import Range, partitions_of, publish, read_range


_REPLAY_CHUNK = 500  # records published between two progress lines


@dataclass(frozen=True)
class BadLine:
    """An input line `submit` could not turn into an event."""

    line: int
    answer_id: str | None
    error: str


def answer_records(lines: Iterable[str], raw: bool = False) -> tuple[list[Record], list[BadLine]]:
    """`answer.submitted` records from JSON lines of `data` objects (blank lines skipped).

    With `raw`, each line is published unchanged as the value (already an envelope, or
    deliberately bad input); the key is the answer id or subject when it can be read.
    """
    records: list[Record] = []
    bad: list[BadLine] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj: Any = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            if raw:
                records.append(Record(ANSWERS_SUBMITTED, _bytes(line), None, []))
            else:
                bad.append(BadLine(number, None, f"invalid JSON: {exc}"))
            continue
        answer_id = _answer_id(obj)
        if raw:
            key = answer_id.encode() if answer_id else None
            records.append(Record(ANSWERS_SUBMITTED, _bytes(line.rstrip("\r\n")), key, []))
            continue
        try:
            answer = AnswerSubmitted.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "$"
            bad.append(BadLine(number, answer_id, f"{where}: {first['msg']}"))
            continue
        event = make_event(answer, subject=answer.answer_id, source="citeflow/submit")
        records.append(
            Record(ANSWERS_SUBMITTED, encode(event), answer.answer_id.encode(), headers_for(event))
        )
    return records, bad


def _bytes(line: str) -> bytes:
    """A line's original bytes (read with `surrogateescape`: invalid UTF-8 kept as is)."""
    return line.encode("utf-8", "surrogateescape")


def _answer_id(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return None
    for holder in (obj, obj.get("data")):
        if isinstance(holder, dict) and isinstance(holder.get("answer_id"), str):
            return holder["answer_id"]
    return obj.get("subject") if isinstance(obj.get("subject"), str) else None


async def tail(
    config: RuntimeConfig,
    topic: str,
    on_record: Callable[[ConsumerRecord], Awaitable[None] | None],
    *,
    from_beginning: bool = False,
    count: int | None = None,
    timeout: float | None = None,
    ready: asyncio.Event | None = None,
) -> int:
    """Call `on_record` for each new record of `topic` (every partition, no group, no
    commits) until `count` records or `timeout` seconds of silence; returns the count.
    `ready` is set once the consumer is positioned (anything published later is seen)."""
    consumer = make_consumer(config, group_id=None)
    await consumer.start()
    seen = 0
    try:
        tps = await partitions_of(consumer, config.physical(topic))
        consumer.assign(tps)
        if from_beginning:
            await consumer.seek_to_beginning(*tps)
        else:
            await consumer.seek_to_end(*tps)
        for tp in tps:
            await consumer.position(tp)
        if ready is not None:
            ready.set()
        last = time.monotonic()
        while count is None or seen < count:
            batches = await consumer.getmany(timeout_ms=200)
            if not batches:
                if timeout is not None and time.monotonic() - last > timeout:
                    break
                continue
            last = time.monotonic()
            for records in batches.values():
                for record in records:
                    result = on_record(record)
                    if result is not None:
                        await result
                    seen += 1
                    if count is not None and seen >= count:
                        return seen
    finally:
        await consumer.stop()
    return seen


def replay_target(record: ConsumerRecord, topic: str, to: str | None) -> str:
    """Where replay sends a record: `to`, else a dead letter's original topic, else the
    topic it was read from."""
    if to:
        return to
    info = read_dead_letter(list(record.headers or ()))
    return info.original_topic if info is not None else topic


@dataclass(frozen=True)
class Selection:
    """Which records of a topic a replay takes: an offset range, a time range (record
    timestamps, ms since the epoch, [since, until)) and/or answer ids (record keys)."""

    where: Range = Range()
    since_ms: int | None = None
    until_ms: int | None = None
    keys: frozenset[str] = frozenset()

    def check(self) -> None:
        """ValueError for a range that can select nothing by construction."""
        if (self.where.start is not None and self.where.end is not None
                and self.where.start >= self.where.end):
            raise ValueError(f"empty offset range: --start {self.where.start} is not before "
                             f"--end {self.where.end}")
        if (self.since_ms is not None and self.until_ms is not None
                and self.since_ms >= self.until_ms):
            raise ValueError("empty time range: --since is not before --until")

    def __call__(self, record: ConsumerRecord) -> bool:
        if self.since_ms is not None and record.timestamp < self.since_ms:
            return False
        if self.until_ms is not None and record.timestamp >= self.until_ms:
            return False
        if self.keys and (record.key or b"").decode("utf-8", "replace") not in self.keys:
            return False
        return not is_marker(record.headers or ())


def recomputed(value: bytes, headers: list[tuple[str, bytes]], stamp: str) -> tuple[
    bytes, list[tuple[str, bytes]]
] | None:
    """The event with a new id (`<id>~<stamp>`), so every stage derives new ids from it and
    the results store takes the new result as a new version; None when the value is not an
    event (replayed unchanged)."""
    try:
        envelope = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("id"), str):
        return None
    envelope["id"] = new_id = f"{envelope['id']}~{stamp}"
    return orjson.dumps(envelope), [(k, new_id.encode() if k == "ce_id" else v)
                                    for k, v in headers]


async def replay(
    config: RuntimeConfig, topic: str, chosen: Selection | None = None, to: str | None = None,
    *, dry_run: bool = False, recompute: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Copy the records of `topic` that `chosen` selects (key, value and non-dead-letter
    headers kept; with `recompute`, new event ids stamped with it) to their target topics;
    returns how many go to each target (nothing is published on a dry run)."""
    chosen = chosen or Selection()
    chosen.check()
    records: list[Record] = []
    async for record in read_range(config, config.physical(topic), chosen.where):
        if not chosen(record):
            continue
        value = record.value or b""
        headers = [(k, v) for k, v in (record.headers or ()) if not k.startswith("dlq_")]
        fresh = recomputed(value, headers, recompute) if recompute else None
        if fresh is not None:
            value, headers = fresh
        records.append(Record(replay_target(record, topic, to), value, record.key, headers))
    counts: dict[str, int] = {}
    for record in records:
        counts[record.topic] = counts.get(record.topic, 0) + 1
    if dry_run:
        return counts
    for done in range(0, len(records), _REPLAY_CHUNK):
        await publish(config, records[done:done + _REPLAY_CHUNK])
        if progress is not None:
            progress(min(done + _REPLAY_CHUNK, len(records)), len(records))
    return counts


async def dlq_topics(config: RuntimeConfig) -> list[str]:
    """The logical names of every dead-letter topic on the broker."""
    consumer = make_consumer(config, group_id=None)
    await consumer.start()
    try:
        names = await consumer.topics()
    finally:
        await consumer.stop()
    return sorted(
        config.logical(t) for t in names
        if t.endswith(".dlq") and t.startswith(config.topic_prefix)
    )
