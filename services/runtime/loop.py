"""The consumer/producer loop every stage shares.

One `StageRunner` per process: a consumer in the stage's group, one producer, and the
stage's pure handler in between (or its coroutine handler, for a stage that waits on I/O).
Delivery is at-least-once; the comments marked COMMIT say what is committed when, and why.

Logs: one `batch processed` line per batch at info (its records, wall time and slowest
record); at debug, a `record processed` line per record and a `batch delivered` line.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.errors import CommitFailedError, KafkaError, KafkaTimeoutError

from schemas.envelope import EventTooLarge, derived_event_id, headers_for, make_event
from schemas.registry import event_type_of
from schemas.trusted import encode_written
from services.runtime.config import RuntimeConfig
from services.runtime.dead_letters import Record, dead_letter
from services.runtime.kafka import make_consumer, make_producer
from services.runtime.logging import get_logger, rejection_fields
from services.runtime.metrics import StageMetrics
from services.runtime.offsets import OffsetTracker
from services.runtime.pending import Pending
from services.runtime.retry import RetryPolicy
from services.runtime.stage import Message, Output, PermanentError, Stage

_GETMANY_TIMEOUT_MS = 200
_YIELD_EVERY_S = 0.01


class Abandoned(Exception):
    """Processing of a message was given up because the process is stopping."""


class FatalDeliveryError(Exception):
    """Neither a message's outputs nor its dead letter can be produced: stop the process."""


_EVENT_TYPES: dict[type, str] = {}


def output_record(stage: str, output: Output) -> Record:
    """An Output as a CloudEvent record keyed by its subject, with a deterministic id and
    the headers that tell the next stage it was written here (`schemas.trusted`)."""
    model = type(output.data)
    etype = _EVENT_TYPES.get(model)
    if etype is None:
        etype = _EVENT_TYPES[model] = event_type_of(model).type
    event = make_event(
        output.data,
        subject=output.subject,
        source=f"citeflow/{stage}",
        event_id=derived_event_id(output.cause_id, stage, etype),
        traceparent=output.traceparent,
    )
    value, written = encode_written(event)
    return Record(output.topic, value, output.subject.encode(), headers_for(event) + written)


def is_retriable(error: BaseException) -> bool:
    """Whether a delivery error may pass by itself (broker down, timeout, leader moving)."""
    if isinstance(error, KafkaError):
        return bool(error.retriable) or isinstance(error, KafkaTimeoutError)
    return isinstance(error, (asyncio.TimeoutError, ConnectionError))


class StageRunner:
    """Runs one stage against Kafka until `stop()` is called."""

    def __init__(
        self, stage: Stage, config: RuntimeConfig, metrics: StageMetrics | None = None
    ) -> None:
        self.stage = stage
        self.config = config
        self.metrics = metrics or StageMetrics(stage.name)
        self.policy = RetryPolicy(
            config.retry_max_attempts, config.retry_base_ms, config.retry_max_ms
        )
        self.log = get_logger(stage.name)
        self.tracker = OffsetTracker()
        self.stopping = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._physical: dict[str, str] = {}
        self._delivery: asyncio.Task[None] | None = None
        # Fetched batches and records so far (logged at the end: the mean batch size).
        self.batches = 0
        self.records = 0
        self._consumer: AIOKafkaConsumer | None = None
        self._producer: AIOKafkaProducer | None = None
        self._last_yield = time.monotonic()
        # The slowest handler call of the batch being processed (seconds; logged with it).
        self._slowest = 0.0
        self._debug = self.log.is_enabled_for(logging.DEBUG)
        # A stage with a coroutine handler (see `_dispatch`): the records in flight, per
        # partition in offset order, the tasks sending them in that order and settling
        # their deliveries, and the room left under `stage.concurrency`.
        self._poll = self._poll_once if stage.handle_async is None else self._poll_dispatching
        self._queues: dict[TopicPartition, deque[tuple[Message, asyncio.Task[list[Record]],
                                                       _Fetched]]] = {}
        self._drains: dict[TopicPartition, asyncio.Task[None]] = {}
        self._settling: set[asyncio.Task[None]] = set()
        self._in_flight = 0
        self._room = asyncio.Event()
        self._room.set()
        self._commit_lock = asyncio.Lock()
        self._failure: BaseException | None = None

    def stop(self) -> None:
        """Stop fetching; the in-flight batch is finished, delivered and committed."""
        if not self.stopping.is_set():
            self.log.info("stopping")
        self.stopping.set()

    # -- lifecycle -----------------------------------------------------------------------

    async def run(self) -> None:
        """Consume, process, produce, commit, until stopped; then leave the group cleanly."""
        topics = [self.config.physical(t) for t in self.stage.input_topics]
        self._consumer = make_consumer(self.config, group_id=self.config.group_for(self.stage.name),
                                       group_instance_id=self.config.group_instance_id or None)
        self._consumer.subscribe(topics, listener=_Rebalance(self))
        self._producer = make_producer(self.config)
        try:
            if not await self._start():
                return
            self.log.info("started", topics=topics, group=self.config.group_for(self.stage.name),
                          instance=self.config.group_instance_id or None)
            while not self.stopping.is_set():
                await self._poll()
        finally:
            await self._shutdown()

    async def _start(self) -> bool:
        """Start producer and consumer, retrying while the broker is not reachable yet."""
        attempt = 0
        producer_up = False
        while not self.stopping.is_set():
            try:
                assert self._producer is not None and self._consumer is not None
                if not producer_up:
                    await self._producer.start()
                    producer_up = True
                await self._consumer.start()
                return True
            except KafkaError as exc:
                attempt += 1
                self.log.warning("broker not reachable", error=str(exc), attempt=attempt)
                await self._sleep(self.policy.delay(min(attempt, 8)))
        return False

    async def _shutdown(self) -> None:
        # COMMIT (shutdown): the loop has stopped fetching and the in-flight batch is
        # delivered (or abandoned, uncommitted); commit what is finished, then leave the
        # group so the partitions move to another replica at once.
        if self._consumer is not None:
            try:
                await self._await_delivery()
                await self._await_dispatched()
                await self._commit()
            except Exception as exc:  # noqa: BLE001 - shutting down; re-delivery covers it
                self.log.warning("final commit failed", error=str(exc))
            await self._consumer.stop()
        if self._producer is not None:
            await self._producer.stop()
        self.log.info("stopped", batches=self.batches, records=self.records)

    async def _sleep(self, seconds: float) -> None:
        """Sleep, but wake at once when the process is stopping."""
        try:
            await asyncio.wait_for(self.stopping.wait(), timeout=seconds)
        except TimeoutError:
            pass

    # -- the loop ------------------------------------------------------------------------

    async def _poll_once(self) -> None:
        assert self._consumer is not None
        try:
            batches = await self._consumer.getmany(
                timeout_ms=_GETMANY_TIMEOUT_MS, max_records=self.config.batch_size
            )
        except KafkaError as exc:
            self.log.warning("fetch failed", error=str(exc))
            await self._sleep(self.policy.delay(1))
            return
        if not batches:
            return
        self._idle.clear()
        try:
            pending = await self._process_batch(batches)
            # One batch is delivered (and committed) in the background while the next is
            # fetched and processed; wait for the previous one before handing this one over.
            await self._await_delivery()
            self._delivery = asyncio.create_task(self._deliver(pending))
        finally:
            self._idle.set()
        self._report_lag(batches)

    async def _process_batch(
        self, batches: dict[TopicPartition, list[ConsumerRecord]]
    ) -> list[Pending]:
        size = 0
        for records in batches.values():
            size += len(records)
        self.metrics.batch(size)
        self.batches += 1
        self.records += size
        started = time.perf_counter()
        self._slowest = 0.0
        if len(batches) == 1:
            ((tp, records),) = batches.items()
            pending = await self._process_partition(tp, records)
        else:
            # Partitions run concurrently (one retrying does not hold up the others),
            # records of one partition strictly in order.
            results = await asyncio.gather(
                *(self._process_partition(tp, records) for tp, records in batches.items())
            )
            pending = [p for partition in results for p in partition]
        self.log.info("batch processed", records=size, partitions=_names(batches),
                      ms=round((time.perf_counter() - started) * 1000, 3),
                      slowest_ms=round(self._slowest * 1000, 3))
        if self._debug:
            for item in pending:
                self._message_log(item.message).debug(
                    "record processed", outputs=[r.topic for r in item.records])
        return pending

    async def _deliver(self, pending: list[Pending]) -> None:
        started = time.perf_counter()
        await self._settle(pending)
        # COMMIT (after each batch's deliveries): every record produced for the committed
        # offsets was acknowledged by the broker (acks=all). Records of the next batch may
        # already be started, so the commit stops before them; anything unfinished, and
        # everything after it in its partition, stays uncommitted and is re-delivered.
        await self._commit()
        if self._debug:
            self.log.debug("batch delivered", records=len(pending),
                           ms=round((time.perf_counter() - started) * 1000, 3))

    async def _await_delivery(self) -> None:
        """Wait for the batch in delivery (re-raising a fatal delivery error)."""
        if self._delivery is not None:
            delivery, self._delivery = self._delivery, None
            await delivery

    async def quiesce(self) -> None:
        """Wait until no batch is being processed or delivered (no record in flight)."""
        await self._idle.wait()
        if self._delivery is not None:
            await asyncio.shield(self._delivery)
        await self._await_dispatched()

    async def _process_partition(
        self, tp: TopicPartition, records: list[ConsumerRecord]
    ) -> list[Pending]:
        # The hot path: per record one Message, the stage's handler, the output records
        # handed to the producer. No task, log call or metric update per record; the
        # stage-logic times are observed once per partition batch.
        pending: list[Pending] = []
        topic = self.config.logical(tp.topic)
        handle = self.stage.handle
        stage = self.stage.name
        start = self.tracker.start
        send = self._send
        perf = time.perf_counter
        times: list[float] = []
        try:
            for record in records:
                message = Message(
                    topic,
                    record.value or b"",
                    record.key,
                    record.partition,
                    record.offset,
                    tuple(record.headers) if record.headers else (),
                )
                start(tp, record.offset)
                began = perf()
                try:
                    out = [output_record(stage, o) for o in handle(message)]
                except Exception as exc:  # noqa: BLE001 - retries and dead letters below
                    try:
                        out = await self._recover(message, exc)
                    except Abandoned:
                        # Stopping mid-retry: leave this record and the rest of the
                        # partition unfinished, so nothing from here on is committed.
                        break
                    now = perf()
                else:
                    now = perf()
                    times.append(now - began)
                    for r in out:
                        if r.topic.endswith(".rejected"):
                            self._rejected(message, out)
                            break
                item = Pending(tp, message, out)
                await send(item)
                pending.append(item)
                if now - self._last_yield > _YIELD_EVERY_S:
                    # Let heartbeats and the other partitions run during a long batch.
                    self._last_yield = now
                    await asyncio.sleep(0)
        finally:
            self.metrics.processing_times(times)
            if times:
                self._slowest = max(self._slowest, max(times))
        return pending

    # -- a coroutine handler: records dispatched as they arrive ------------------------------

    async def _poll_dispatching(self) -> None:
        # A coroutine handler (a model judge: seconds per record): every fetched record gets
        # its own task at once and the loop fetches again, at most `stage.concurrency`
        # records in flight (fetching waits for room), so a record never waits for the rest
        # of its batch. Per partition the outputs are still sent in offset order (`_drain`),
        # and a record is finished only when its outputs are acknowledged (`_settle`): the
        # commits take the finished prefix, as on the batch path.
        if self._failure is not None:
            raise self._failure
        if not self._room.is_set():
            waits = [asyncio.create_task(e.wait()) for e in (self._room, self.stopping)]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()
            if self.stopping.is_set():
                return  # the records in flight are finished by _shutdown
        assert self._consumer is not None
        free = self.stage.concurrency - self._in_flight
        try:
            batches = await self._consumer.getmany(
                timeout_ms=_GETMANY_TIMEOUT_MS, max_records=min(free, self.config.batch_size)
            )
        except KafkaError as exc:
            self.log.warning("fetch failed", error=str(exc))
            await self._sleep(self.policy.delay(1))
            return
        if batches:
            self._dispatch(batches)
            self._report_lag(batches)

    def _dispatch(self, batches: dict[TopicPartition, list[ConsumerRecord]]) -> None:
        """Start the handler of every record and the in-order sending of each partition."""
        fetched = _Fetched(sum(len(records) for records in batches.values()), _names(batches))
        self.metrics.batch(fetched.records)
        self.batches += 1
        self.records += fetched.records
        for tp, records in batches.items():
            topic = self.config.logical(tp.topic)
            queue = self._queues.setdefault(tp, deque())
            for record in records:
                message = Message(topic, record.value or b"", record.key, record.partition,
                                  record.offset,
                                  tuple(record.headers) if record.headers else ())
                self.tracker.start(tp, record.offset)
                queue.append((message, asyncio.create_task(self._handle(message)), fetched))
            self._in_flight += len(records)
            if tp not in self._drains:
                self._drains[tp] = asyncio.create_task(self._drain(tp))
        if self._in_flight >= self.stage.concurrency:
            self._room.clear()

    async def _drain(self, tp: TopicPartition) -> None:
        """Send the partition's outputs in offset order as their handlers finish."""
        queue = self._queues[tp]
        try:
            while queue:
                message, task, fetched = queue[0]
                try:
                    out = await task
                except Abandoned:
                    # Stopping mid-retry: this record and the rest of the partition stay
                    # unfinished, so nothing from here on is committed (re-delivered); the
                    # later records' handlers are cancelled.
                    for _, later, _ in queue:
                        later.cancel()
                    self._release(len(queue))
                    queue.clear()
                    return
                queue.popleft()
                item = Pending(tp, message, out)
                await self._send(item)
                self._release(1)
                if self._debug:
                    self._message_log(message).debug(
                        "record processed", outputs=[r.topic for r in item.records])
                if fetched.sent():
                    self.log.info("batch processed", records=fetched.records,
                                  partitions=fetched.partitions, ms=fetched.ms,
                                  slowest_ms=fetched.ms)
                settle = asyncio.create_task(self._settle_one(item))
                self._settling.add(settle)
                settle.add_done_callback(self._settling.discard)
        finally:
            del self._drains[tp]

    async def _settle_one(self, item: Pending) -> None:
        try:
            await self._settle([item])
            # COMMIT (after each record's deliveries, coroutine handler): the finished prefix
            # of every partition; one commit at a time, so none goes back behind another.
            async with self._commit_lock:
                await self._commit()
        except FatalDeliveryError as exc:
            self._failure = exc  # raised by the loop: the process stops
            self._room.set()

    def _release(self, count: int) -> None:
        self._in_flight -= count
        if self._in_flight < self.stage.concurrency:
            self._room.set()

    async def _await_dispatched(self) -> None:
        """Wait until every dispatched record is sent and settled (none, on the batch path)."""
        while self._drains or self._settling:
            await asyncio.gather(*self._drains.values(), *self._settling,
                                 return_exceptions=True)
        if self._failure is not None:
            raise self._failure

    async def _handle(self, message: Message) -> list[Record]:
        """The records to produce for one message: its outputs, or its dead letter."""
        started = time.perf_counter()
        try:
            records = await self._outputs(message)
        except Exception as exc:  # noqa: BLE001 - stages never crash on input
            return await self._recover(message, exc)
        took = time.perf_counter() - started
        self.metrics.processing_time(took)
        self._slowest = max(self._slowest, took)
        if any(r.topic.endswith(".rejected") for r in records):
            self._rejected(message, records)
        return records

    async def _outputs(self, message: Message) -> list[Record]:
        """One call of the stage's handler (its coroutine one if it has one), as records."""
        if self.stage.handle_async is not None:
            outputs = await self.stage.handle_async(message)
        else:
            outputs = self.stage.handle(message)
        return [output_record(self.stage.name, o) for o in outputs]

    async def _recover(self, message: Message, error: Exception, attempt: int = 1) -> (
        list[Record]
    ):
        """After attempt `attempt` failed with `error`: retry with backoff, or dead-letter."""
        while True:
            self.metrics.failed(type(error).__name__)
            if isinstance(error, (PermanentError, EventTooLarge)) or self.policy.exhausted(
                attempt
            ):
                # Permanent (an output the broker would refuse is as large on every try):
                # dead-lettered at once. TransientError and any unexpected exception:
                # retried with backoff, without committing; after the last attempt it
                # becomes a dead letter.
                return [self._dead_letter(message, error, attempt)]
            self._message_log(message).warning(
                "retrying", error_type=type(error).__name__, error=str(error), attempt=attempt
            )
            await self._sleep(self.policy.delay(attempt))
            if self.stopping.is_set():
                raise Abandoned() from error
            attempt += 1
            started = time.perf_counter()
            try:
                records = await self._outputs(message)
            except Exception as exc:  # noqa: BLE001 - stages never crash on input
                error = exc
                continue
            self.metrics.processing_time(time.perf_counter() - started)
            if any(r.topic.endswith(".rejected") for r in records):
                self._rejected(message, records)
            return records

    def _rejected(self, message: Message, records: list[Record]) -> None:
        rejected = [r for r in records if r.topic.endswith(".rejected")]
        self.metrics.rejected(len(rejected))
        self._message_log(message).info("rejected", outputs=len(rejected),
                                        **rejection_fields(message, rejected))

    def _dead_letter(self, message: Message, error: BaseException, attempts: int) -> Record:
        self.metrics.dead_lettered()
        self._message_log(message).error(
            "dead-lettered", error_type=type(error).__name__, error=str(error), attempts=attempts
        )
        return dead_letter(message, self.stage.name, error, attempts)

    def _message_log(self, message: Message) -> Any:
        """The stage's logger bound to one message (only built when something is logged)."""
        event_id = next((v.decode("utf-8", "replace") for k, v in message.headers if k == "ce_id"),
                        None)
        return self.log.bind(
            topic=message.topic,
            partition=message.partition,
            offset=message.offset,
            answer_id=message.key.decode("utf-8", "replace") if message.key else None,
            event_id=event_id,
        )

    # -- delivery ------------------------------------------------------------------------

    async def _send(self, item: Pending) -> None:
        """Hand every record of `item` to the producer without waiting for delivery;
        `_settle` waits for the acknowledgements."""
        producer = self._producer
        assert producer is not None
        futures: list[asyncio.Future[Any]] = []
        physical = self._physical
        for record in item.records:
            target = physical.get(record.topic)
            if target is None:
                target = physical[record.topic] = self.config.physical(record.topic)
            try:
                future = await producer.send(
                    target, record.value, key=record.key, headers=record.headers
                )
            except Exception as exc:  # noqa: BLE001 - kept as a failed delivery, settled below
                future = asyncio.get_running_loop().create_future()
                future.set_exception(exc)
            futures.append(future)
        item.futures = futures

    @staticmethod
    async def _acknowledged(futures: list[asyncio.Future[Any]]) -> BaseException | None:
        """Wait for every future; the first delivery error, or None when all were acked."""
        error: BaseException | None = None
        for future in futures:
            if not future.done():
                try:
                    await asyncio.shield(future)
                except asyncio.CancelledError:
                    if not future.cancelled():
                        raise  # we are cancelled ourselves
                except Exception:  # noqa: BLE001, S110 - read below
                    pass
            if error is None:
                if future.cancelled():
                    error = KafkaError("delivery cancelled")
                else:
                    error = future.exception()
        return error

    async def _settle(self, pending: list[Pending]) -> None:
        """Wait for every delivery of the batch, re-send what failed; mark the inputs whose
        outputs are all acknowledged finished."""
        finish = self.tracker.finish
        processed = 0
        for item in pending:
            error = await self._acknowledged(item.futures)
            attempt = 0
            while error is not None:
                attempt += 1
                if not is_retriable(error):
                    # An output the broker will never take (e.g. too large): the input is
                    # poison for this stage, so it becomes a dead letter instead.
                    if item.records and item.records[0].topic.endswith(".dlq"):
                        raise FatalDeliveryError(f"dead letter not deliverable: {error}")
                    item.records = [self._dead_letter(item.message, error, attempt)]
                elif self.stopping.is_set() and self.policy.exhausted(attempt):
                    # Broker gone while shutting down: leave it uncommitted (re-delivered).
                    self._message_log(item.message).warning("delivery abandoned", error=str(error))
                    break
                else:
                    self._message_log(item.message).warning(
                        "delivery failed, retrying", error=str(error), attempt=attempt
                    )
                    await self._sleep(self.policy.delay(attempt))
                await self._send(item)
                error = await self._acknowledged(item.futures)
            if error is None:
                finish(item.tp, item.message.offset)
                processed += 1
        if processed:
            self.metrics.processed(processed)

    # -- commits -------------------------------------------------------------------------

    async def _commit(self, tps: Iterable[TopicPartition] | None = None) -> None:
        """Commit the finished prefix of each (given) partition this consumer still owns."""
        assert self._consumer is not None
        assigned = self._consumer.assignment()
        offsets = {
            tp: pos
            for tp, pos in self.tracker.to_commit(list(tps) if tps is not None else None).items()
            if tp in assigned
        }
        if not offsets:
            return
        try:
            await self._consumer.commit(offsets)
        except CommitFailedError as exc:
            # The group rebalanced: the partitions may belong to another member now, which
            # resumes from the last successful commit (duplicates, never losses).
            self.log.warning("commit failed after rebalance", error=str(exc))
            return
        except KafkaError as exc:
            # Still committable next time: the tracker only forgets what the broker took.
            self.log.warning("commit failed", error=str(exc))
            return
        self.tracker.committed(offsets)

    def _report_lag(self, batches: dict[TopicPartition, list[ConsumerRecord]]) -> None:
        assert self._consumer is not None
        for tp, records in batches.items():
            high = self._consumer.highwater(tp)
            if high is not None and records:
                self.metrics.lag(tp.topic, tp.partition, max(0, high - records[-1].offset - 1))


class _Fetched:
    """One fetched batch of a coroutine handler's records: logged when its last is sent."""

    def __init__(self, records: int, partitions: list[str]) -> None:
        self.records = records
        self.partitions = partitions
        self._left = records
        self._started = time.perf_counter()
        self.ms = 0.0

    def sent(self) -> bool:
        """Count one record sent; True for the last (`ms` is then the batch's time)."""
        self._left -= 1
        if self._left:
            return False
        self.ms = round((time.perf_counter() - self._started) * 1000, 3)
        return True


class _Rebalance(ConsumerRebalanceListener):
    """Commit what is finished before partitions move; never half-done work."""

    def __init__(self, runner: StageRunner) -> None:
        self.runner = runner

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        # COMMIT (revoke): wait (bounded) for the in-flight batch to be delivered, then
        # commit the finished prefix of the revoked partitions. A record still unfinished
        # at the deadline is not committed; the next owner processes it again.
        if not revoked:
            return
        try:
            await asyncio.wait_for(
                self.runner.quiesce(), timeout=self.runner.config.shutdown_timeout_s
            )
        except TimeoutError:
            self.runner.log.warning("revoke: in-flight batch not finished in time")
        except Exception as exc:  # noqa: BLE001 - the main loop reports it and stops
            self.runner.log.warning("revoke: in-flight batch failed", error=str(exc))
        await self.runner._commit(revoked)
        self.runner.tracker.forget(list(revoked))
        self.runner.log.info("partitions revoked", partitions=_names(revoked))

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.runner.log.info("partitions assigned", partitions=_names(assigned))


def _names(tps: Iterable[TopicPartition]) -> list[str]:
    return sorted(f"{tp.topic}:{tp.partition}" for tp in tps)
