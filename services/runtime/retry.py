"""Retry policy: exponential backoff with full jitter."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry a failing message."""

    max_attempts: int = 5
    base_ms: int = 100
    max_ms: int = 10_000

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based).

        Full jitter: uniform in [cap/2, cap] where cap doubles per attempt up to `max_ms`;
        the floor at half the cap keeps a retry storm from turning into a tight loop.
        """
        cap = min(self.max_ms, self.base_ms * (2 ** max(0, attempt - 1)))
        draw = (rng or random).uniform(0.5, 1.0)
        return cap * draw / 1000.0

    def exhausted(self, attempt: int) -> bool:
        """True when `attempt` failed attempts are all we may make."""
        return attempt >= self.max_attempts
