"""The runner's message handling and delivery bookkeeping, with an in-memory producer."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import orjson
import pytest
from aiokafka import TopicPartition
from aiokafka.errors import KafkaConnectionError, MessageSizeTooLargeError

from schemas.answers import AnswerSubmitted
from schemas.envelope import EventTooLarge, decode, encode, headers_for, make_event
from services.bench.workload import bench_answer
from services.runtime.config import RuntimeConfig
from services.runtime.loop import StageRunner, output_record
from services.runtime.pending import Pending
from services.runtime.stage import (
    Message,
    Output,
    PermanentError,
    Stage,
    TransientError,
)

TP = TopicPartition("in", 0)


def _answer_message(offset: int = 0) -> Message:
    answer = AnswerSubmitted.model_validate(bench_answer("a-1", words=30, citations=2,
                                                         sources=1, verbatim_units=0))
    event = make_event(answer, subject="a-1", source="test", event_id="e-1")
    return Message("in", encode(event), b"a-1", 0, offset, tuple(headers_for(event)))


def _echo(message: Message) -> list[Output]:
    event = decode(message.value)
    return [Output("out", event.data, event.subject, event.id, "00-trace-01")]


def _runner(handle: Any, attempts: int = 3) -> StageRunner:
    stage = Stage("echo", ("in",), ("out",), handle)
    config = RuntimeConfig.from_env({}, retry_max_attempts=attempts, retry_base_ms=1,
                                    retry_max_ms=2)
    return StageRunner(stage, config)


def test_output_record_is_a_keyed_event_with_a_deterministic_id() -> None:
    output = _echo(_answer_message())[0]
    first, again = output_record("echo", output), output_record("echo", output)
    assert first.topic == "out" and first.key == b"a-1"
    body = orjson.loads(first.value)
    assert body["id"] == orjson.loads(again.value)["id"] != "e-1"
    assert body["source"] == "citeflow/echo" and body["traceparent"] == "00-trace-01"
    assert ("ce_id", body["id"].encode()) in first.headers


async def test_outputs_of_a_good_message() -> None:
    records = await _runner(_echo)._handle(_answer_message())
    assert [r.topic for r in records] == ["out"]


async def test_permanent_error_is_dead_lettered_at_once() -> None:
    calls = []

    def handle(message: Message) -> list[Output]:
        calls.append(1)
        raise PermanentError("unknown_version", "v9 is not readable")

    runner = _runner(handle)
    records = await runner._handle(_answer_message())
    assert len(calls) == 1
    assert records[0].topic == "in.dlq"
    assert dict(records[0].headers)["dlq_attempts"] == b"1"
    assert runner.metrics.value("citeflow_messages_dead_lettered_total") == 1


async def test_an_output_over_the_record_limit_is_dead_lettered_at_once() -> None:
    calls = []

    def handle(message: Message) -> list[Output]:
        calls.append(1)
        raise EventTooLarge("the answer.resolved event of 'a' would be 17000000 bytes")

    records = await _runner(handle, attempts=4)._handle(_answer_message())
    assert len(calls) == 1 and records[0].topic == "in.dlq"
    assert dict(records[0].headers)["dlq_error_type"] == b"EventTooLarge"


async def test_unexpected_errors_are_retried_then_dead_lettered() -> None:
    calls = []

    def handle(message: Message) -> list[Output]:
        calls.append(1)
        raise KeyError("bug")

    records = await _runner(handle, attempts=4)._handle(_answer_message())
    assert len(calls) == 4
    assert dict(records[0].headers)["dlq_error_type"] == b"KeyError"


async def test_transient_error_then_success() -> None:
    calls = []

    def handle(message: Message) -> list[Output]:
        calls.append(1)
        if len(calls) < 3:
            raise TransientError("dependency down")
        return _echo(message)

    records = await _runner(handle, attempts=5)._handle(_answer_message())
    assert len(calls) == 3 and records[0].topic == "out"


async def test_rejections_are_counted() -> None:
    def handle(message: Message) -> list[Output]:
        return [Output("answers.rejected", o.data, o.subject, o.cause_id) for o in _echo(message)]

    runner = _runner(handle)
    await runner._handle(_answer_message())
    assert runner.metrics.value("citeflow_messages_rejected_total") == 1


class FakeProducer:
    """Hands out delivery futures; outcomes are scripted per send (None = acknowledged)."""

    def __init__(self, outcomes: list[BaseException | None] | None = None) -> None:
        self.outcomes = list(outcomes or [])
        self.sent: list[tuple[str, bytes, asyncio.Future[Any]]] = []
        self.auto = True

    async def send(self, topic: str, value: bytes, key: bytes | None = None,
                   headers: Any = None) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.sent.append((topic, value, future))
        if self.auto:
            outcome = self.outcomes.pop(0) if self.outcomes else None
            if outcome is None:
                future.set_result("ack")
            else:
                future.set_exception(outcome)
        return future


async def test_offset_finishes_only_when_every_output_is_acknowledged() -> None:
    runner = _runner(lambda m: _echo(m) + _echo(m))
    producer = FakeProducer()
    producer.auto = False
    runner._producer = producer  # type: ignore[assignment]
    message = _answer_message(offset=5)
    runner.tracker.start(TP, 5)
    item = Pending(TP, message, await runner._handle(message))
    await runner._send(item)
    assert len(producer.sent) == 2
    settle = asyncio.create_task(runner._settle([item]))
    producer.sent[0][2].set_result("ack")
    await asyncio.sleep(0.01)
    assert not settle.done() and runner.tracker.committable(TP) == 5
    producer.sent[1][2].set_result("ack")
    await settle
    assert runner.tracker.committable(TP) == 6
    assert runner.metrics.value("citeflow_messages_processed_total") == 1


async def test_a_finished_record_behind_an_unfinished_one_is_not_committable() -> None:
    runner = _runner(_echo, attempts=1)
    producer = FakeProducer([KafkaConnectionError("broker gone"), None, None])
    runner._producer = producer  # type: ignore[assignment]
    runner.stopping.set()  # shutting down: a failed delivery is abandoned, not retried
    items = []
    for offset in (0, 1):
        message = _answer_message(offset=offset)
        runner.tracker.start(TP, offset)
        items.append(Pending(TP, message, await runner._handle(message)))
        await runner._send(items[-1])
    await runner._settle(items)
    # Offset 1 is acknowledged, offset 0 is not: the position stays at 0.
    assert runner.tracker.committable(TP) == 0
    assert runner.tracker.unfinished(TP) == 1


async def test_a_batch_is_processed_in_order_and_committed_after_the_acks() -> None:
    from aiokafka import ConsumerRecord

    runner = _runner(_echo)
    producer = FakeProducer()
    runner._producer = producer  # type: ignore[assignment]

    commits: list[dict[TopicPartition, int]] = []

    class FakeConsumer:
        def assignment(self) -> set[TopicPartition]:
            return {TP}

        async def commit(self, offsets: dict[TopicPartition, int]) -> None:
            assert all(f.done() for _, _, f in producer.sent)
            commits.append(dict(offsets))

    runner._consumer = FakeConsumer()  # type: ignore[assignment]
    message = _answer_message()
    records = [
        ConsumerRecord("in", 0, offset, 0, 0, message.key, message.value, None, 0, 0,
                       list(message.headers))
        for offset in range(3)
    ]
    pending = await runner._process_batch({TP: records})
    assert [p.message.offset for p in pending] == [0, 1, 2]
    await runner._deliver(pending)
    assert commits == [{TP: 3}]
    assert runner.metrics.value("citeflow_messages_processed_total") == 3
    assert runner.metrics.value("citeflow_processing_seconds_count") == 3
    assert runner.metrics.value("citeflow_batch_size_count") == 1


def test_bulk_processing_times_match_one_by_one() -> None:
    one, bulk = _runner(_echo).metrics, _runner(_echo).metrics
    values = [0.0, 0.0001, 0.00011, 0.0005, 0.003, 0.2, 0.5, 2.0, 7.5]
    for value in values:
        one.processing_time(value)
    bulk.processing_times(values)
    for le in ("0.0001", "0.0005", "0.005", "0.5", "1.0", "+Inf"):
        assert bulk.value("citeflow_processing_seconds_bucket", le=le) == one.value(
            "citeflow_processing_seconds_bucket", le=le)
    assert bulk.value("citeflow_processing_seconds_sum") == pytest.approx(
        one.value("citeflow_processing_seconds_sum"))


async def test_retriable_delivery_failure_is_resent() -> None:
    runner = _runner(_echo)
    producer = FakeProducer([KafkaConnectionError("broker gone"), None])
    runner._producer = producer  # type: ignore[assignment]
    message = _answer_message()
    runner.tracker.start(TP, 0)
    item = Pending(TP, message, await runner._handle(message))
    await runner._send(item)
    await runner._settle([item])
    assert [topic for topic, _, _ in producer.sent] == ["out", "out"]
    assert runner.tracker.committable(TP) == 1


async def test_undeliverable_output_becomes_a_dead_letter() -> None:
    runner = _runner(_echo)
    producer = FakeProducer([MessageSizeTooLargeError("too big"), None])
    runner._producer = producer  # type: ignore[assignment]
    message = _answer_message()
    runner.tracker.start(TP, 0)
    item = Pending(TP, message, await runner._handle(message))
    await runner._send(item)
    await runner._settle([item])
    assert [topic for topic, _, _ in producer.sent] == ["out", "in.dlq"]
    assert producer.sent[1][1] == message.value
    assert runner.tracker.committable(TP) == 1


@pytest.mark.parametrize("port", [None, 0])
def test_metrics_endpoint_disabled(port: int | None) -> None:
    assert _runner(_echo).metrics.serve(port) is None


def test_metrics_endpoint_serves_prometheus_text() -> None:
    import urllib.request

    runner = _runner(_echo)
    runner.metrics.processed(3)
    runner.metrics.lag("in", 0, 12)
    port = runner.metrics.serve(_free_port())
    assert port
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    assert 'citeflow_messages_processed_total{stage="echo"} 3.0' in text
    assert 'citeflow_consumer_lag{partition="0",stage="echo",topic="in"} 12.0' in text


def _free_port() -> int:
    from services.broker import free_port

    return free_port()


def _async_runner(handle: Any, concurrency: int, attempts: int = 3) -> StageRunner:
    async def handle_async(message: Message) -> list[Output]:
        return await handle(message)

    stage = Stage("echo", ("in",), ("out",), _echo, handle_async=handle_async,
                  concurrency=concurrency)
    config = RuntimeConfig.from_env({}, retry_max_attempts=attempts, retry_base_ms=1,
                                    retry_max_ms=2)
    return StageRunner(stage, config)


def _batch(count: int) -> dict[TopicPartition, list[Any]]:
    from aiokafka import ConsumerRecord

    message = _answer_message()
    return {TP: [ConsumerRecord("in", 0, offset, 0, 0, message.key, message.value, None, 0, 0,
                                list(message.headers)) for offset in range(count)]}


class _Consumer:
    def __init__(self) -> None:
        self.commits: list[dict[TopicPartition, int]] = []

    def assignment(self) -> set[TopicPartition]:
        return {TP}

    async def commit(self, offsets: dict[TopicPartition, int]) -> None:
        self.commits.append(dict(offsets))


class _Fetching(_Consumer):
    """A consumer holding `records` of TP, handing out at most `max_records` per fetch."""

    def __init__(self, records: list[Any]) -> None:
        super().__init__()
        self.records = records
        self.asked: list[int] = []

    async def getmany(self, timeout_ms: int, max_records: int) -> dict[TopicPartition, Any]:
        self.asked.append(max_records)
        taken, self.records = self.records[:max_records], self.records[max_records:]
        return {TP: taken} if taken else {}

    def highwater(self, tp: TopicPartition) -> None:
        return None


def _caused(message: Message) -> list[Output]:
    """The echo, caused by the record's offset (each output has its own id)."""
    event = decode(message.value)
    return [Output("out", event.data, event.subject, f"c-{message.offset}")]


async def test_a_coroutine_handler_takes_records_as_room_frees_and_sends_them_in_order() -> (
        None):
    # At most `concurrency` records in flight: the first fetch asks for 3, the next waits
    # until one is sent. The three finish last-first; their outputs still leave in offset
    # order, and every offset is committed once acknowledged.
    in_flight, most = 0, 0
    go = asyncio.Event()

    async def handle(message: Message) -> list[Output]:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await go.wait()
        for _ in range(6 - message.offset):  # earlier offsets take more turns of the loop
            await asyncio.sleep(0)
        in_flight -= 1
        return _caused(message)

    runner = _async_runner(handle, concurrency=3)
    producer = FakeProducer()
    runner._producer = producer  # type: ignore[assignment]
    consumer = _Fetching(_batch(6)[TP])
    runner._consumer = consumer  # type: ignore[assignment]
    await runner._poll_dispatching()
    assert consumer.asked == [3]
    waiting = asyncio.create_task(runner._poll_dispatching())
    await asyncio.sleep(0.01)
    assert not waiting.done() and consumer.asked == [3]  # no room, no fetch
    go.set()
    await waiting
    while consumer.records:
        await runner._poll_dispatching()
    await runner._await_dispatched()
    assert most == 3
    expected = [orjson.loads(output_record("echo", _caused(_answer_message(n))[0]).value)["id"]
                for n in range(6)]
    assert [orjson.loads(value)["id"] for _, value, _ in producer.sent] == expected
    assert consumer.commits[-1] == {TP: 6}
    assert runner.metrics.value("citeflow_messages_processed_total") == 6


async def test_a_coroutine_handler_stopping_mid_retry_commits_only_what_came_before() -> None:
    # Offset 2 keeps failing while the process stops: offsets 0 and 1 are delivered and
    # committed, offset 2 and everything after it stay uncommitted (re-delivered).
    runner = _async_runner(None, concurrency=5, attempts=50)

    async def handle(message: Message) -> list[Output]:
        if message.offset == 2:
            runner.stopping.set()
            raise TransientError("judge down")
        return _caused(message)

    runner.stage = replace(runner.stage, handle_async=handle)
    producer = FakeProducer()
    runner._producer = producer  # type: ignore[assignment]
    consumer = _Consumer()
    runner._consumer = consumer  # type: ignore[assignment]
    runner._dispatch(_batch(5))
    await runner._await_dispatched()
    assert len(producer.sent) == 2
    assert consumer.commits[-1] == {TP: 2}
    assert runner.tracker.unfinished(TP) == 3


async def test_stopping_ends_a_wait_for_room_without_fetching() -> None:
    never = asyncio.Event()

    async def handle(message: Message) -> list[Output]:
        await never.wait()
        return _caused(message)

    runner = _async_runner(handle, concurrency=1)
    runner._producer = FakeProducer()  # type: ignore[assignment]
    consumer = _Fetching(_batch(2)[TP])
    runner._consumer = consumer  # type: ignore[assignment]
    await runner._poll_dispatching()
    waiting = asyncio.create_task(runner._poll_dispatching())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    runner.stop()
    await waiting
    assert consumer.asked == [1]  # the second record was never fetched
    never.set()
    await runner._await_dispatched()
    assert consumer.commits[-1] == {TP: 1}
