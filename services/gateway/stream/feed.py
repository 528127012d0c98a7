"""The hub's one Kafka consumer: every partition of the outcome topics, assigned by hand.

No consumer group: every gateway replica reads every record (a group would split the
partitions between replicas and each would stream only part of the results), and nothing
is committed: a client's position lives in its Last-Event-ID, not in the broker.

Partitions that exist at the first connection are read from `warm` records before their
end (the hub keeps those as history for resuming clients and streams only what follows);
a topic or partition that appears later is read from its beginning (all of it came after
the start). (Tansu answers ListOffsets(latest) with the last batch's base offset + 1, so
the "end" may be a few records early: those records are then streamed as new.)

Failures (broker down, network, timeouts) never end the feed: the consumer is dropped,
the state goes `degraded` (the hub tells every client), and a new consumer resumes at the
next offset of every partition after a backoff (RetryPolicy: exponential, jittered).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import structlog
from aiokafka import AIOKafkaConsumer, TopicPartition

from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_consumer
from services.runtime.retry import RetryPolicy
from services.runtime.stage import Message

log = structlog.get_logger("citeflow.stream")

# (logical topic, partition), the offset before the first one read, the first live offset
OnPartition = Callable[[tuple[str, int], int, int], None]
OnMessage = Callable[[Message], None]
OnState = Callable[[str, str | None], None]  # "live" | "degraded", detail
OnCaughtUp = Callable[[], None]  # the history of the first assignment has been read
OnRewind = Callable[[tuple[str, int], int], None]  # a partition restarted at this offset


class Feed:
    """Reads `topics` (logical names) and hands every record to `on_message`, in order
    per partition."""

    def __init__(self, config: RuntimeConfig, topics: tuple[str, ...],
                 on_partition: OnPartition, on_message: OnMessage, on_state: OnState,
                 on_caught_up: OnCaughtUp, on_rewind: OnRewind, warm: int = 0,
                 probe_s: float = 5.0, poll_ms: int = 500) -> None:
        self.config = config
        self.topics = topics
        self.on_partition = on_partition
        self.on_message = on_message
        self.on_state = on_state
        self.on_caught_up = on_caught_up
        self.on_rewind = on_rewind
        self.warm = warm
        # How often a live consumer checks the broker (metadata: also finds new
        # partitions); a failed check is how a broker outage is noticed, as fetches
        # simply come back empty.
        self.probe_s = probe_s
        self.poll_ms = poll_ms
        self.retry = RetryPolicy(base_ms=config.retry_base_ms, max_ms=config.retry_max_ms)
        self.state = "starting"
        self._next: dict[TopicPartition, int] = {}  # next offset to read, per partition
        self._assigned_once = False
        self._warming: dict[TopicPartition, int] = {}  # partition -> first live offset
        self.caught_up = False

    async def run(self) -> None:
        """Consume until cancelled, reconnecting after any failure."""
        attempt = 0
        while True:
            consumer = make_consumer(self.config, group_id=None)
            try:
                await consumer.start()
                await self._assign(consumer)
                self._set_state("live", None)
                attempt = 0
                await self._consume(consumer)
            except asyncio.CancelledError:
                if _stopping():
                    raise
                attempt += 1  # a CancelledError leaked by the client library: a failure
                self._set_state("degraded", "the broker connection was lost; retrying")
            except Exception as exc:  # noqa: BLE001 - the broker or network; retried
                attempt += 1
                if attempt == 1 or attempt % 20 == 0:  # an outage logs once, then seldom
                    log.warning("stream feed failed; retrying", attempt=attempt,
                                error=f"{type(exc).__name__}: {exc}")
                self._set_state("degraded", "the broker cannot be reached "
                                f"({type(exc).__name__}); retrying")
            finally:
                await _stop_quietly(consumer)
            await asyncio.sleep(self.retry.delay(attempt))

    async def _consume(self, consumer: AIOKafkaConsumer) -> None:
        loop = asyncio.get_running_loop()
        last_probe = loop.time()
        while True:
            batches = await consumer.getmany(timeout_ms=self.poll_ms, max_records=1000)
            for tp, records in batches.items():
                topic = self.config.logical(tp.topic)
                for r in records:
                    if r.offset < self._next[tp]:
                        # Only an offset reset reads backwards: the log was lost and began
                        # again, and the consumer was reset to its beginning.
                        self.on_rewind((topic, tp.partition), r.offset)
                    self._next[tp] = r.offset + 1
                    self.on_message(Message(topic, r.value or b"", r.key, r.partition,
                                            r.offset, r.headers, r.timestamp))
            await self._check_logs(consumer)
            if not self.caught_up:
                await self._check_caught_up(consumer)
            if loop.time() - last_probe >= self.probe_s:
                last_probe = loop.time()
                found = await asyncio.wait_for(self._discover(consumer), self.probe_s)
                if set(found) != consumer.assignment():
                    await self._assign(consumer, found)

    async def _check_logs(self, consumer: AIOKafkaConsumer) -> None:
        """A partition whose log now ends before our position lost its data and began
        again (a topic recreated, an in-memory broker restarted): read it from its new
        beginning. (A log that has already grown past our position again cannot be told
        from the old one: those records are skipped.) The high watermark comes from fetch
        responses, which Tansu answers exactly."""
        for tp in consumer.assignment():
            end = consumer.highwater(tp)
            if end is not None and self._next.get(tp, 0) > end:
                begin = (await consumer.beginning_offsets([tp]))[tp]
                consumer.seek(tp, begin)
                self._next[tp] = begin
                self.on_rewind((self.config.logical(tp.topic), tp.partition), begin)

    async def _check_caught_up(self, consumer: AIOKafkaConsumer) -> None:
        """Whether every partition read its history (its position is at its live offset:
        a position, not the last record, as a log may end in records no fetch returns)."""
        for tp, live in list(self._warming.items()):
            if await consumer.position(tp) >= live:
                del self._warming[tp]
        if not self._warming:
            self.caught_up = True
            self.on_caught_up()

    async def _discover(self, consumer: AIOKafkaConsumer) -> list[TopicPartition]:
        """Every partition of the topics that exist (KafkaError when the broker is down)."""
        await consumer.topics()  # a metadata request: raises when no broker answers
        found = []
        for topic in self.topics:
            physical = self.config.physical(topic)
            for partition in sorted(consumer.partitions_for_topic(physical) or ()):
                found.append(TopicPartition(physical, partition))
        return found

    async def _assign(self, consumer: AIOKafkaConsumer,
                      found: list[TopicPartition] | None = None) -> None:
        """Assign every partition: known ones at their next offset, new ones `warm` records
        before their end (first connection) or at their beginning (appeared since)."""
        if found is None:
            found = await asyncio.wait_for(self._discover(consumer), self.probe_s)
        consumer.assign(found)
        new = [tp for tp in found if tp not in self._next]
        for tp in found:
            if tp in self._next:
                consumer.seek(tp, self._next[tp])
        if new:
            begins = await consumer.beginning_offsets(new)
            ends = await consumer.end_offsets(new)
            for tp in new:
                live = ends[tp] if not self._assigned_once else begins[tp]
                start = max(begins[tp], live - self.warm)
                consumer.seek(tp, start)
                self._next[tp] = start
                self.on_partition((self.config.logical(tp.topic), tp.partition), start - 1,
                                  live)
                if start < live:
                    self._warming[tp] = live
        self._assigned_once = True

    def _set_state(self, state: str, detail: str | None) -> None:
        if state != self.state:
            self.state = state
            self.on_state(state, detail)


async def _stop_quietly(consumer: AIOKafkaConsumer) -> None:
    try:
        await consumer.stop()
    except asyncio.CancelledError:
        # aiokafka's stop awaits its fetch task after cancelling it and may pass that
        # CancelledError on when the broker is gone: only our own cancellation goes up.
        if _stopping():
            raise
    except Exception as exc:  # noqa: BLE001 - a consumer that failed may fail to stop too
        log.debug("stream consumer stop failed", error=str(exc))


def _stopping() -> bool:
    """Whether the running task itself is being cancelled (not a library's inner task)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
