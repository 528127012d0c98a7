"""The stream hub: one Kafka consumer per process fanned out to every connected client.

Each outcome record is decoded once (services.store.decode) and encoded once into SSE
bytes (frames.py); the hub then offers the same bytes to every matching client's bounded
queue (subscriber.py) and never waits for a client. Clients are indexed by tenant, so a
record is matched against its tenant's clients and the all-tenant (admin) ones only.

Resuming (`Last-Event-ID` = the hub's offset vector as of an event, positions.py):
- from the ring of recent frames (ring.py) when the position is within its window;
- else from the store (`since`, oldest change first, in pages) and then the ring, every
  seam deduplicated by position and event id (subscriber.py); the store is read only
  once the store sink has committed past the ring's floor (sink_progress.py), else the
  client gets a `store_behind` error and retries: nothing between the two is skipped;
- a position more than `max_behind` records behind the hub is too old, and one that does
  not decode is garbage: either gets an `error` event and a fresh start from now.
At start the hub reads the last `ring_frames` records of every partition into the ring as
history (streamed to nobody), so a client resuming across a gateway restart is served
from memory; the live stream starts at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import structlog
from aiokafka.errors import KafkaError

from services.gateway.stream import frames, metrics
from services.gateway.stream.feed import Feed
from services.gateway.stream.filters import StreamFilter
from services.gateway.stream.frames import Frame
from services.gateway.stream.positions import (
    STREAM_TOPICS,
    BadPosition,
    TopicPartition,
    Vector,
    decode_position,
    encode_position,
)
from services.gateway.stream.ring import Ring
from services.gateway.stream.sink_progress import SinkProgress
from services.gateway.stream.subscriber import Subscriber
from services.runtime.config import RuntimeConfig
from services.runtime.stage import Message, PermanentError
from services.store.api import (
    AnswerRecord,
    Judgement,
    ResultsStore,
    ResultUpdate,
    StoreUnavailable,
)
from services.store.decode import decode_record

log = structlog.get_logger("citeflow.stream")

Write = Callable[[bytes], Awaitable[None]]
StoreWritten = Callable[[Vector], Awaitable[bool]]
RETRY_MS = 2000  # the reconnection delay clients are told (SSE `retry:`)
WRITE_CHUNK = 64 * 1024  # bytes per write to a client (uvicorn's write buffer high-water)


@dataclass(frozen=True)
class HubLimits:
    """The hub's bounds (memory per client, windows, timings)."""

    client_buffer: int = 256  # frames queued per client before it is cut off (overflow)
    ring_frames: int = 4096
    ring_bytes: int = 64 * 1024 * 1024
    heartbeat_s: float = 15.0  # an SSE comment to idle clients (proxies drop silent ones)
    # A client ended (overflow, shutdown) whose write is still stuck after this long has
    # stopped reading: its connection is dropped.
    stall_s: float = 10.0
    max_behind: int = 100_000  # records a Last-Event-ID may be behind the hub
    store_page: int = 200  # rows per `since` call during a catch-up
    recent_ids: int = 65_536  # event ids remembered to drop at-least-once duplicates
    # Outcomes kept for `wait_for` calls that come after the outcome passed (a submit's
    # wait registers after the broker's ack; the pipeline takes longer than that).
    recent_outcomes: int = 1024
    ready_wait_s: float = 10.0  # how long a resume waits for the hub's history to load
    sink_wait_s: float = 5.0  # how long a resume waits for the store to reach the ring


@dataclass
class Subscription:
    """A client as `subscribe` registered it, and what it must be sent before live frames:
    `notice` bytes, then the store's rows after `store_from` (None: none; the store must
    hold everything up to `store_until` first), then `backlog`."""

    subscriber: Subscriber
    notice: bytes
    store_from: Vector | None = None
    store_until: Vector = field(default_factory=dict)
    backlog: list[Frame] = field(default_factory=list)


class Hub:
    """`start()`, `stop()`, `ready()`; `subscribe`/`catch_up`/`pump`/`unsubscribe` for the
    stream route; `wait_for` for `POST /v1/answers?wait=`."""

    def __init__(self, config: RuntimeConfig, store: ResultsStore,
                 limits: HubLimits | None = None,
                 decode: Callable[[Message], object] = decode_record,
                 store_written: StoreWritten | None = None) -> None:
        self.config = config
        self.store = store
        # Whether the store holds every record up to a vector (default: the committed
        # offsets of the store sink's group, found on the broker).
        self.store_written = store_written or SinkProgress(config).written
        self.limits = limits or HubLimits()
        self.decode = decode
        self.vector: Vector = {}
        self.ring = Ring(self.limits.ring_frames, self.limits.ring_bytes)
        self.feed = Feed(config, STREAM_TOPICS, self._on_partition, self.publish,
                         self._on_state, self._on_caught_up, self._on_rewind,
                         warm=self.limits.ring_frames)
        self._live_from: dict[TopicPartition, int] = {}  # first offset streamed, per partition
        self._warm = asyncio.Event()
        self._by_tenant: dict[str | None, set[Subscriber]] = {}
        self._ending: set[Subscriber] = set()
        # Keyed by (answer_id, tenant): answer ids are per tenant.
        self._waiters: dict[tuple[str, str], list[asyncio.Future[AnswerRecord]]] = {}
        self._recent_ids: dict[str, None] = {}
        # (answer id, tenant) -> latest outcome
        self._recent: dict[tuple[str, str], AnswerRecord] = {}
        self._overflow = frames.control("overflow", {
            "detail": f"this client fell more than {self.limits.client_buffer} events behind "
                      "and was disconnected; reconnect with Last-Event-ID (EventSource does) "
                      "to resume where it stopped"}, retry_ms=RETRY_MS)
        self._tasks: list[asyncio.Task[None]] = []

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Start consuming (in the background: the broker may be down) and the ticker;
        a hub already started is left as it is."""
        if self._tasks:
            return
        self._tasks = [asyncio.create_task(self.feed.run(), name="stream-feed"),
                       asyncio.create_task(self._tick(), name="stream-ticker")]

    async def stop(self) -> None:
        """End every client (they reconnect elsewhere with their Last-Event-ID) and stop."""
        bye = frames.control("status", {"state": "stopping",
                                        "detail": "this gateway is shutting down; reconnect"},
                             retry_ms=RETRY_MS)
        for sub in list(self._subscribers()):
            sub.end(bye)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    def ready(self) -> bool:
        """Consuming, and the history of the ring loaded."""
        return self.feed.state == "live" and self._warm.is_set()

    # -- the record path ---------------------------------------------------------------

    def publish(self, message: Message) -> None:
        """One record from the feed: decode once, encode once, offer to matching clients.
        Never raises: an unreadable record is logged and skipped (its position still
        counts, so resuming clients do not ask for it again)."""
        tp = (message.topic, message.partition)
        if message.offset <= self.vector.get(tp, -1):
            return  # read again after a reconnection
        self.vector[tp] = message.offset
        history = message.offset < self._live_from.get(tp, 0)
        try:
            update = self.decode(message)
            if not isinstance(update, (ResultUpdate, Judgement)):
                return
            if update.event_id in self._recent_ids:
                metrics.DUPLICATES.inc()
                return  # an at-least-once duplicate: delivered once
            frame = (frames.update_frame(update, encode_position(self.vector))
                     if isinstance(update, ResultUpdate)
                     else frames.judgement_frame(update, encode_position(self.vector)))
        except PermanentError as exc:
            log.warning("unreadable outcome record skipped", position=message.position,
                        code=exc.code, error=str(exc))
            return
        except Exception:
            # A bug decoding or encoding one record must not stop the feed for everyone.
            log.exception("outcome record could not be streamed", position=message.position)
            return
        self._remember(update)
        self.ring.append(frame)
        if history:
            return
        if isinstance(update, ResultUpdate):
            self._resolve_waiters((update.answer_id, update.tenant))
        ended = []
        offered = 0
        for group in (self._by_tenant.get(frame.tenant), self._by_tenant.get(None)):
            for sub in group or ():
                if sub.filter.accepts(frame.tenant, frame.status, frame.model, frame.summary):
                    sub.offer(frame)
                    offered += 1
                    if sub.ending is not None:
                        ended.append(sub)
        for sub in ended:
            self._retire(sub)
        metrics.RECORDS.inc()
        metrics.DELIVERIES.inc(offered)

    def _remember(self, update: ResultUpdate | Judgement) -> None:
        self._recent_ids[update.event_id] = None
        if len(self._recent_ids) > self.limits.recent_ids:
            del self._recent_ids[next(iter(self._recent_ids))]
        if isinstance(update, Judgement):
            return  # an opinion, not an outcome: `wait_for` waits for the result
        key = (update.answer_id, update.tenant)
        self._recent.pop(key, None)
        self._recent[key] = record_of(update)
        if len(self._recent) > self.limits.recent_outcomes:
            del self._recent[next(iter(self._recent))]

    def _on_partition(self, tp: TopicPartition, before: int, live_from: int) -> None:
        self.vector.setdefault(tp, before)
        self.ring.add_partition(tp, before)
        self._live_from[tp] = live_from

    def _on_rewind(self, tp: TopicPartition, offset: int) -> None:
        """The partition's log began again: follow it. Ids given out before name offsets
        of the old log; on this partition they may skip records up to those offsets."""
        log.warning("stream partition restarted at an earlier offset (topic recreated or "
                    "broker data lost)", topic=tp[0], partition=tp[1], offset=offset,
                    was=self.vector.get(tp))
        self.vector[tp] = offset - 1
        self.ring.restart(tp, offset - 1)

    def _on_caught_up(self) -> None:
        self._warm.set()

    def _on_state(self, state: str, detail: str | None) -> None:
        self._offer_all(frames.control("status", {"state": state, "detail": detail}))

    def _offer_all(self, item: bytes, only_idle: bool = False) -> None:
        """Offer control bytes to every client (`only_idle`: those with nothing pending)."""
        for sub in self._subscribers():
            if not (only_idle and sub.pending):
                sub.offer(item)
                if sub.ending is not None:
                    self._retire(sub)

    # -- clients -------------------------------------------------------------------------

    async def subscribe(self, stream_filter: StreamFilter, last_event_id: str | None = None,
                        full: bool = True) -> Subscription:
        """Register a client (`full`: events carry the result, else the summary view).
        With a Last-Event-ID, plan its catch-up (once the hub's history is loaded, so the
        ring's window is known)."""
        sub = Subscriber(stream_filter, self.limits.client_buffer, self._overflow, full)
        notice = [self._status()]
        store_from: Vector | None = None
        store_until: Vector = {}
        backlog: list[Frame] = []
        if last_event_id:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._warm.wait(), self.limits.ready_wait_s)
            try:
                vector = decode_position(last_event_id)
            except BadPosition as exc:
                metrics.RESUMES.labels("bad_id").inc()
                notice.append(_error("bad_last_event_id", f"Last-Event-ID: {exc}; streaming "
                                     "from now"))
            else:
                if not self._warm.is_set():
                    # No window to compare with yet: end at once, the client retries.
                    sub.end(frames.control("status", {
                        "state": self.feed.state, "detail": "not ready to resume yet; "
                        "reconnect"}, retry_ms=RETRY_MS))
                elif self._behind(vector) > self.limits.max_behind:
                    metrics.RESUMES.labels("too_old").inc()
                    notice.append(_error(
                        "last_event_id_too_old", f"Last-Event-ID is more than "
                        f"{self.limits.max_behind} records old; streaming from now (query "
                        "GET /v1/answers for what came before)"))
                else:
                    # Partitions this hub does not read cannot matter; dropping them keeps
                    # a forged id from growing the store's query.
                    vector = {tp: o for tp, o in vector.items() if tp in self.vector}
                    sub.vector = vector
                    sub.seen = set()
                    if not self.ring.covers(vector):
                        store_from = vector
                        store_until = {tp: floor for tp, floor in self.ring.floor.items()
                                       if vector.get(tp, -1) < floor}
                    metrics.RESUMES.labels("ring" if store_from is None else "store").inc()
                    backlog = self.ring.after(vector, lambda f: stream_filter.accepts(
                        f.tenant, f.status, f.model, f.summary))
        if sub.ending is None:
            self._by_tenant.setdefault(stream_filter.tenant, set()).add(sub)
            metrics.CLIENTS.inc()
        return Subscription(sub, b"".join(notice), store_from, store_until, backlog)

    def unsubscribe(self, sub: Subscriber) -> None:
        """Forget a client (its connection closed); idempotent."""
        group = self._by_tenant.get(sub.filter.tenant)
        known = sub in self._ending or (group is not None and sub in group)
        if group is not None:
            group.discard(sub)
            if not group:
                del self._by_tenant[sub.filter.tenant]
        self._ending.discard(sub)
        if known:
            metrics.CLIENTS.dec()
        sub.pending.clear()

    async def catch_up(self, subscription: Subscription, write: Write) -> None:
        """Send a resuming client what it missed: the store's rows, then the ring's frames.
        A store that cannot be reached ends the stream (the client retries later from the
        same position: nothing is skipped)."""
        sub = subscription.subscriber
        await write(subscription.notice)
        if subscription.store_from is not None and sub.vector is not None:
            if not await self._store_reached(subscription.store_until):
                sub.end(_error("store_behind", "the results store has not yet recorded "
                               "everything this stream must resume from; reconnect later",
                               retry_ms=5 * RETRY_MS))
                return
            try:
                await self._from_store(sub, write)
            except StoreUnavailable:
                sub.end(_error("store_unavailable", "the results store cannot be reached to "
                               "resume this stream; reconnect later", retry_ms=5 * RETRY_MS))
                return
        await write_all(write, [data for f in subscription.backlog
                                if (data := sub.render(f)) is not None])

    async def _store_reached(self, needed: Vector) -> bool:
        """Whether the store holds every record up to `needed`, waiting a little for the
        sink (any failure to find out counts as no: the client retries later)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.sink_wait_s
        while True:
            try:
                if await asyncio.wait_for(self.store_written(needed), self.limits.sink_wait_s):
                    return True
            except (KafkaError, OSError, TimeoutError) as exc:
                log.warning("store sink progress unknown", error=f"{type(exc).__name__}: {exc}")
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.2)

    async def _from_store(self, sub: Subscriber, write: Write) -> None:
        assert sub.vector is not None and sub.seen is not None
        accepts = sub.filter.accepts
        while True:
            rows = await self.store.since(sub.vector, sub.filter.tenant, sub.filter.statuses,
                                          self.limits.store_page)
            out = []
            for row in rows:
                if row.position is None:
                    continue
                tp = (row.position.topic, row.position.partition)
                if row.position.offset <= sub.vector.get(tp, -1):
                    continue
                sub.vector[tp] = row.position.offset
                if not accepts(row.tenant, row.status, row.model, row.summary):
                    continue
                if row.event_id:
                    sub.seen.add(row.event_id)
                out.append(frames.record_frame(row, encode_position(sub.vector))
                           .data(sub.full))
            await write_all(write, out)
            if len(rows) < self.limits.store_page:
                return

    async def pump(self, sub: Subscriber, write: Write) -> None:
        """Send live frames until the client is ended (overflow, shutdown) or gone."""
        loop = asyncio.get_running_loop()
        while True:
            await sub.wait()
            if sub.ending is not None:
                final = sub.ending
                sub.sending_since = loop.time()
                await write(final)
                return
            out = []
            for item in sub.take():
                data = item if isinstance(item, bytes) else sub.render(item)
                if data is not None:
                    out.append(data)
            if out:
                sub.sending_since = loop.time()
                await write_all(write, out)
                sub.sending_since = 0.0

    def _retire(self, sub: Subscriber) -> None:
        """An ended client (overflow: `offer` ends a client for nothing else) gets no more
        frames; it is watched until its last write completes."""
        group = self._by_tenant.get(sub.filter.tenant)
        if group is not None and sub in group:
            group.discard(sub)
            self._ending.add(sub)
            metrics.OVERFLOWS.inc()

    @property
    def clients(self) -> int:
        """Connected clients (ended ones still writing their last event included)."""
        return sum(len(group) for group in self._by_tenant.values()) + len(self._ending)

    def _subscribers(self) -> list[Subscriber]:
        return [sub for group in self._by_tenant.values() for sub in group]

    def _behind(self, vector: Vector) -> int:
        return sum(max(0, offset - vector.get(tp, -1)) for tp, offset in self.vector.items())

    def _status(self) -> bytes:
        state = "live" if self.ready() else self.feed.state
        return frames.control("status", {"state": state}, retry_ms=RETRY_MS)

    async def _tick(self) -> None:
        """Heartbeats to idle clients; drops ended clients that stopped reading."""
        loop = asyncio.get_running_loop()
        period = min(1.0, self.limits.heartbeat_s)
        next_beat = loop.time() + self.limits.heartbeat_s
        while True:
            await asyncio.sleep(period)
            now = loop.time()
            if now >= next_beat:
                next_beat = now + self.limits.heartbeat_s
                self._offer_all(frames.HEARTBEAT, only_idle=True)
            for sub in self._ending:
                if (sub.sending_since and now - sub.sending_since > self.limits.stall_s
                        and sub.task is not None and not sub.dropped):
                    metrics.DROPPED.inc()
                    sub.dropped = True
                    sub.task.cancel()

    # -- ?wait= --------------------------------------------------------------------------

    async def wait_for(self, answer_id: str, tenant: str,
                       timeout: float) -> AnswerRecord | None:
        """The tenant's answer's outcome (formatted, rejected or dead-lettered) when it
        passes through the hub within `timeout` seconds, or already did recently (the last
        `recent_outcomes` outcomes); None when the time runs out. Answer ids are per
        tenant: outcomes are kept and waited for by (answer_id, tenant), so another
        tenant's outcome of the same id neither ends nor answers this wait."""
        key = (answer_id, tenant)
        recent = self._recent.get(key)
        if recent is not None:
            return recent
        future: asyncio.Future[AnswerRecord] = asyncio.get_running_loop().create_future()
        waiters = self._waiters.setdefault(key, [])
        waiters.append(future)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None
        finally:
            waiters.remove(future)
            if not waiters:
                self._waiters.pop(key, None)

    def _resolve_waiters(self, key: tuple[str, str]) -> None:
        for future in self._waiters.get(key, ()):
            if not future.done():
                future.set_result(self._recent[key])


async def write_all(write: Write, parts: list[bytes]) -> None:
    """Send `parts` in writes of about WRITE_CHUNK bytes. The server buffers a write
    whole before its flow control pauses the next one, so one big write to a client that
    stopped reading would hold all of it in memory: small writes hold one chunk."""
    batch: list[bytes] = []
    size = 0
    for part in parts:
        batch.append(part)
        size += len(part)
        if size >= WRITE_CHUNK:
            await write(b"".join(batch))
            batch, size = [], 0
    if batch:
        await write(b"".join(batch))


def record_of(update: ResultUpdate) -> AnswerRecord:
    """The AnswerRecord an outcome makes (what `wait_for` returns, as the store would)."""
    latency = None
    if update.submitted_at is not None and update.status == "formatted":
        latency = (update.event_time - update.submitted_at).total_seconds() * 1000
    return AnswerRecord(
        answer_id=update.answer_id, tenant=update.tenant, status=update.status,
        model=update.model, submitted_at=update.submitted_at, updated_at=update.event_time,
        event_id=update.event_id, result=update.result, reason=update.reason,
        detail=update.detail, summary=update.summary, latency_ms=latency,
        position=update.position,
    )


def _error(code: str, detail: str, retry_ms: int | None = None) -> bytes:
    return frames.control("error", {"code": code, "detail": detail}, retry_ms=retry_ms)
