"""One stream client: a bounded buffer the hub offers frames to without ever waiting, and
the client's position when it is not in step with the hub's frames (after a resume)."""

from __future__ import annotations

import asyncio
from collections import deque

from services.gateway.stream.filters import StreamFilter
from services.gateway.stream.frames import Frame
from services.gateway.stream.positions import Vector, decode_position, encode_position

Item = Frame | bytes  # an outcome, or control bytes (heartbeat, status)


class Subscriber:
    """A client's queue. `offer` never blocks: past `limit` pending items the client is
    ended with `overflow` (what it had pending is dropped, so memory stays bounded) and it
    resumes from its last received id on reconnection."""

    __slots__ = (
        "_overflow",
        "_waiter",
        "dropped",
        "ending",
        "filter",
        "full",
        "limit",
        "pending",
        "seen",
        "sending_since",
        "task",
        "vector",
    )

    def __init__(self, stream_filter: StreamFilter, limit: int, overflow: bytes,
                 full: bool = True) -> None:
        self.filter = stream_filter
        self.full = full  # the full view (with `result`), else the summary view
        self.limit = limit
        self.pending: deque[Item] = deque()
        # The last bytes to send before the stream ends (overflow, shutdown); None: live.
        self.ending: bytes | None = None
        # The client's offset vector while it is ahead of the hub's frames on some
        # partition (a resume from the store or from another replica); None: in step.
        self.vector: Vector | None = None
        # Event ids sent during a catch-up, so the seam to live frames repeats none.
        self.seen: set[str] | None = None
        self.task: asyncio.Task[None] | None = None
        self.sending_since = 0.0  # loop time a write started (0: not writing)
        self.dropped = False  # the hub cancelled `task`: the client stopped reading
        self._waiter: asyncio.Future[None] | None = None
        self._overflow = overflow

    def offer(self, item: Item) -> None:
        """Queue `item`, or end the client when its buffer is full."""
        if self.ending is not None:
            return
        if len(self.pending) >= self.limit:
            self.end(self._overflow)
            return
        self.pending.append(item)
        self._wake()

    def end(self, final: bytes) -> None:
        """Drop what is pending and end the stream after `final`."""
        if self.ending is not None:
            return
        self.pending.clear()
        self.ending = final
        self._wake()

    async def wait(self) -> None:
        """Until something is pending or the stream is ending."""
        while not self.pending and self.ending is None:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    def take(self) -> list[Item]:
        """Everything pending, oldest first."""
        items = list(self.pending)
        self.pending.clear()
        return items

    def render(self, frame: Frame) -> bytes | None:
        """The bytes of `frame` for this client; None when the client had it already."""
        if self.vector is None:
            return frame.data(self.full)
        if (frame.offset <= self.vector.get((frame.topic, frame.partition), -1)
                or (self.seen is not None and frame.event_id in self.seen)):
            return None
        hub_vector = decode_position(frame.position)
        ahead = {tp: offset for tp, offset in self.vector.items()
                 if offset > hub_vector.get(tp, -1)}
        if not ahead:
            self.vector = None
            self.seen = None
            return frame.data(self.full)
        hub_vector.update(ahead)
        self.vector = hub_vector
        return frame.with_position(encode_position(hub_vector), self.full)

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
