"""Per-partition offset tracking: what may be committed."""

from __future__ import annotations

from collections.abc import Hashable


class OffsetTracker:
    """Tracks the records a partition has started and finished.

    A record is finished when every record produced for it was acknowledged by the
    broker. The committable position is the offset after the last finished record
    with nothing unfinished before it: a finished record behind an unfinished one is
    not committed, so a crash re-delivers the unfinished one (at-least-once).
    """

    def __init__(self) -> None:
        self._pending: dict[Hashable, dict[int, None]] = {}
        self._high: dict[Hashable, int] = {}
        self._committed: dict[Hashable, int] = {}

    def start(self, tp: Hashable, offset: int) -> None:
        """Record `offset` of `tp` as in progress (offsets arrive in increasing order)."""
        self._pending.setdefault(tp, {})[offset] = None

    def finish(self, tp: Hashable, offset: int) -> None:
        """Mark `offset` of `tp` finished: all its outputs are acknowledged."""
        pending = self._pending.get(tp)
        if pending is None or offset not in pending:
            return
        del pending[offset]
        if offset + 1 > self._high.get(tp, -1):
            self._high[tp] = offset + 1

    def committable(self, tp: Hashable) -> int | None:
        """The offset to commit for `tp` (the next record to read), or None for nothing new."""
        pending = self._pending.get(tp)
        if pending:
            # Dicts keep insertion order and offsets are started in order: the first key
            # is the lowest unfinished offset; nothing at or after it may be committed.
            position: int | None = next(iter(pending))
        else:
            position = self._high.get(tp)
        if position is None or position <= self._committed.get(tp, -1):
            return None
        return position

    def to_commit(self, tps: list[Hashable] | None = None) -> dict[Hashable, int]:
        """Committable positions of the given (default: all) partitions."""
        keys = list(self._pending) if tps is None else tps
        result = {}
        for tp in keys:
            position = self.committable(tp)
            if position is not None:
                result[tp] = position
        return result

    def committed(self, positions: dict[Hashable, int]) -> None:
        """Remember positions the broker accepted, so they are not committed again."""
        for tp, position in positions.items():
            if position > self._committed.get(tp, -1):
                self._committed[tp] = position

    def unfinished(self, tp: Hashable) -> int:
        """How many records of `tp` are still in progress."""
        return len(self._pending.get(tp, ()))

    def forget(self, tps: list[Hashable]) -> None:
        """Drop the state of partitions this process no longer owns."""
        for tp in tps:
            self._pending.pop(tp, None)
            self._high.pop(tp, None)
            self._committed.pop(tp, None)
