"""The runtime's sink mode with in-memory fakes of the consumer, producer and writer: one
write per batch, commits only after it, outages retried without committing, poison
dead-lettered, a value the database refuses isolated to its record."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from aiokafka import ConsumerRecord, TopicPartition

from services.runtime.config import RuntimeConfig
from services.runtime.sink import Sink, SinkRunner
from services.runtime.stage import Message, PermanentError, Stage, TransientError

TP = TopicPartition("in", 0)


class FakeWriter:
    """Scripted outcomes per write (None = committed); remembers what was written."""

    def __init__(self, outcomes: list[BaseException | None] | None = None) -> None:
        self.outcomes = list(outcomes or [])
        self.written: list[list[Any]] = []
        self.attempts = 0

    async def write(self, values: Sequence[Any]) -> None:
        self.attempts += 1
        outcome = self.outcomes.pop(0) if self.outcomes else None
        if outcome is not None:
            raise outcome
        if "refused" in values:
            raise ValueError("the database refuses this value")
        self.written.append(list(values))

    async def close(self) -> None:
        return None


class FakeProducer:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes | None]] = []

    async def send(self, topic: str, value: bytes, key: bytes | None = None,
                   headers: Any = None) -> asyncio.Future[Any]:
        self.sent.append((topic, key))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.set_result("ack")
        return future


class FakeConsumer:
    def __init__(self, writer: FakeWriter) -> None:
        self.writer = writer
        self.commits: list[tuple[dict[TopicPartition, int], int]] = []

    def assignment(self) -> set[TopicPartition]:
        return {TP}

    async def commit(self, offsets: dict[TopicPartition, int]) -> None:
        # Remember how many batches the database had committed at the time.
        self.commits.append((dict(offsets), len(self.writer.written)))


def decode(message: Message) -> Any:
    if message.value == b"poison":
        raise PermanentError("unreadable", "cannot read it")
    if message.value == b"skip":
        return None
    return message.value.decode()


def runner_with(writer: FakeWriter) -> tuple[SinkRunner, FakeConsumer, FakeProducer]:
    async def open_writer() -> FakeWriter:
        return writer

    stage = Stage("sink", ("in",), (), lambda m: [], sink=Sink(decode, open_writer))
    config = RuntimeConfig.from_env({}, retry_base_ms=1, retry_max_ms=2)
    runner = SinkRunner(stage, config)
    consumer, producer = FakeConsumer(writer), FakeProducer()
    runner._consumer = consumer  # type: ignore[assignment]
    runner._producer = producer  # type: ignore[assignment]
    runner._writer = writer
    return runner, consumer, producer


def records(*values: bytes) -> list[ConsumerRecord]:
    return [ConsumerRecord("in", 0, offset, 1_700_000_000_000 + offset, 0, b"k%d" % offset,
                           value, None, 0, 0, [])
            for offset, value in enumerate(values)]


async def test_one_write_per_batch_then_commit() -> None:
    writer = FakeWriter()
    runner, consumer, producer = runner_with(writer)
    pending = await runner._process_batch({TP: records(b"a", b"skip", b"b")})
    assert pending[0].message.timestamp_ms == 1_700_000_000_000
    await runner._deliver(pending)
    assert writer.written == [["a", "b"]]
    assert consumer.commits == [({TP: 3}, 1)]  # after the database commit
    assert producer.sent == []


async def test_outage_is_retried_and_nothing_is_committed_meanwhile() -> None:
    writer = FakeWriter([TransientError("db down"), TransientError("db down"), None])
    runner, consumer, _ = runner_with(writer)
    await runner._deliver(await runner._process_batch({TP: records(b"a")}))
    assert writer.attempts == 3 and writer.written == [["a"]]
    assert consumer.commits == [({TP: 1}, 1)]


async def test_stopping_during_an_outage_commits_nothing() -> None:
    writer = FakeWriter([TransientError("db down")] * 100)
    runner, consumer, _ = runner_with(writer)
    pending = await runner._process_batch({TP: records(b"a", b"b")})
    delivery = asyncio.create_task(runner._deliver(pending))
    await asyncio.sleep(0.05)
    runner.stop()
    await delivery
    await runner._commit()
    # Nothing past the batch's first record is committed: all of it is read again.
    assert writer.written == []
    assert all(offsets[TP] == 0 for offsets, _ in consumer.commits)
    assert runner.tracker.unfinished(TP) == 2


async def test_poison_is_dead_lettered_and_the_rest_written() -> None:
    writer = FakeWriter()
    runner, consumer, producer = runner_with(writer)
    await runner._deliver(await runner._process_batch({TP: records(b"a", b"poison", b"b")}))
    assert producer.sent == [("in.dlq", b"k1")]
    assert writer.written == [["a", "b"]]
    assert consumer.commits == [({TP: 3}, 1)]


async def test_a_value_the_database_refuses_is_isolated_to_its_record() -> None:
    writer = FakeWriter()
    runner, consumer, producer = runner_with(writer)
    await runner._deliver(await runner._process_batch({TP: records(b"a", b"refused", b"b")}))
    assert writer.written == [["a"], ["b"]]
    assert producer.sent == [("in.dlq", b"k1")]
    assert consumer.commits == [({TP: 3}, 2)]


@pytest.mark.parametrize("outcome", [None, TransientError("db down")])
async def test_open_writer_waits_for_the_database(outcome: BaseException | None) -> None:
    attempts = []

    async def open_writer() -> FakeWriter:
        attempts.append(1)
        if outcome is not None and len(attempts) < 3:
            raise outcome
        return FakeWriter()

    stage = Stage("sink", ("in",), (), lambda m: [], sink=Sink(decode, open_writer))
    runner = SinkRunner(stage, RuntimeConfig.from_env({}, retry_base_ms=1, retry_max_ms=2))
    assert await runner._open_writer() is not None
    assert len(attempts) == (1 if outcome is None else 3)
