"""The ring of recent outcome frames a resuming client is served from before the store.

Window: the last `max_frames` frames (default 4,096: about 80 s at 50 results/s) and at
most `max_bytes` of them (default 64 MiB), whichever is smaller. `floor` is, per
(topic, partition), the newest offset no longer in the ring: a client whose position is at
or past the floor on every partition is served from here alone; an older one from the
store first (`ResultsStore.since`), the seam deduplicated by position.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping

from services.gateway.stream.frames import Frame
from services.gateway.stream.positions import TopicPartition, Vector


class Ring:
    """Recent frames, oldest first, bounded by count and bytes."""

    def __init__(self, max_frames: int = 4096, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self.frames: deque[Frame] = deque()
        self.bytes = 0
        self.floor: Vector = {}

    def add_partition(self, tp: TopicPartition, before: int) -> None:
        """A partition the hub reads from offset `before + 1` on: older records are not here."""
        self.floor.setdefault(tp, before)

    def restart(self, tp: TopicPartition, before: int) -> None:
        """A partition whose log began again at `before + 1`: its old frames go."""
        kept = [f for f in self.frames if (f.topic, f.partition) != tp]
        self.frames = deque(kept)
        self.bytes = sum(len(f.wire) for f in kept)
        self.floor[tp] = before

    def append(self, frame: Frame) -> None:
        self.frames.append(frame)
        self.bytes += len(frame.wire)
        while self.frames and (len(self.frames) > self.max_frames
                               or self.bytes > self.max_bytes):
            old = self.frames.popleft()
            self.bytes -= len(old.wire)
            tp = (old.topic, old.partition)
            if old.offset > self.floor.get(tp, -1):
                self.floor[tp] = old.offset

    def covers(self, vector: Mapping[TopicPartition, int]) -> bool:
        """Whether everything after `vector` is still here (or was never an outcome)."""
        return all(vector.get(tp, -1) >= floor for tp, floor in self.floor.items())

    def after(self, vector: Mapping[TopicPartition, int],
              accepts: Callable[[Frame], bool]) -> list[Frame]:
        """The frames past `vector` that `accepts`, oldest first."""
        return [f for f in self.frames
                if f.offset > vector.get((f.topic, f.partition), -1) and accepts(f)]
