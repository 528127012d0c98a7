"""When to retry and how long to wait: exponential backoff with full jitter, never less than
the gateway's `Retry-After`."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from datetime import UTC, datetime

import httpx

# Statuses worth another try: rate limited, unavailable (broker or store down), and the
# Idempotency-Key's first request still in flight (409 with that code).
RETRY_STATUSES = frozenset({429, 503})
IN_FLIGHT = "idempotency_key_in_flight"


@dataclass(frozen=True)
class RetryInfo:
    """One retry about to happen: what failed, and the delay chosen."""

    attempt: int
    delay: float
    status: int | None
    retry_after: float | None
    error: str | None


@dataclass(frozen=True)
class RetryPolicy:
    """`attempts` tries in all; delays of `base * 2**n` (at most `cap`) with full jitter, and
    at least Retry-After. `on_retry` is told of every retry (logging, tests)."""

    attempts: int = 8
    base: float = 0.25
    cap: float = 20.0
    on_retry: Callable[[RetryInfo], None] | None = None
    rng: random.Random = field(default_factory=random.Random, compare=False)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = self.rng.uniform(0, min(self.cap, self.base * 2 ** attempt))
        return max(backoff, retry_after or 0.0)


def retry_after(response: httpx.Response) -> float | None:
    """The Retry-After header in seconds (delta or HTTP date), if any."""
    raw = response.headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def retryable(response: httpx.Response) -> bool:
    if response.status_code in RETRY_STATUSES:
        return True
    if response.status_code == 409:
        try:
            return bool(response.json().get("code") == IN_FLIGHT)
        except ValueError:
            return False
    return False
