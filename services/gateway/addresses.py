"""A token bucket per client address: for requests without a valid key (`auth`) and for
connections the gateway had to cut off (`http_guard`)."""

from __future__ import annotations

import time

from cachetools import TTLCache


class AddressLimiter:
    """`rate_per_s` tokens a second per address, up to `burst`. Bounded: at most `entries`
    addresses, the least recently seen forgotten first (a forgotten address starts full)."""

    def __init__(self, rate_per_s: float, burst: float, entries: int = 10_000) -> None:
        self._rate = rate_per_s
        self._burst = burst
        self._buckets: TTLCache[str, tuple[float, float]] = TTLCache(
            entries, max(burst / rate_per_s, 1.0) * 2)

    def take(self, address: str, spend: bool = True) -> float:
        """0 when `address` has a token (spent unless `spend` is False), else the seconds
        until one refills."""
        now = time.monotonic()
        tokens, stamp = self._buckets.get(address, (self._burst, now))
        tokens = min(self._burst, tokens + (now - stamp) * self._rate)
        if tokens < 1:
            self._buckets[address] = (tokens, now)
            return (1 - tokens) / self._rate
        self._buckets[address] = (tokens - spend, now)
        return 0.0
