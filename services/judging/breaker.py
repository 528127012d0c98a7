"""A circuit breaker around the judge: after `threshold` failures in a row it opens for
`cooldown_s` (every item keeps its lexical verdict at once, nothing waits on a judge that is
down), then lets one call through (half-open); a success closes it, a failure reopens it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from schemas.judged import BreakerState


class CircuitBreaker:
    """Thread-safe: the stage's concurrent calls share one breaker."""

    def __init__(self, threshold: int = 5, cooldown_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = max(1, threshold)
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._trial = False
        self._lock = threading.Lock()

    @property
    def state(self) -> BreakerState:
        """`closed`, `open`, or `half_open` (cooled down: the next call is a trial)."""
        with self._lock:
            return self._state()

    def _state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        return "half_open" if self._clock() - self._opened_at >= self.cooldown_s else "open"

    def allow(self) -> bool:
        """Whether a call may go to the judge now (one trial at a time when half-open)."""
        with self._lock:
            state = self._state()
            if state == "closed":
                return True
            if state == "half_open" and not self._trial:
                self._trial = True
                return True
            return False

    def success(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial = False

    def failure(self) -> None:
        with self._lock:
            self._failures += 1
            if self._trial or self._failures >= self.threshold:
                self._opened_at = self._clock()
            self._trial = False
