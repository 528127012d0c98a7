"""Timing shared by the benchmarks (wall clock unless a clock is given)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def samples_ms(
    fn: Callable[[], object], runs: int, *, before: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Times in milliseconds (wall, or of `clock`) of `runs` (at least one) calls of `fn`;
    `before`, when given, runs untimed ahead of each call."""
    samples = []
    for _ in range(max(1, runs)):
        if before is not None:
            before()
        start = clock()
        fn()
        samples.append((clock() - start) * 1000)
    return samples


def median_ms(
    fn: Callable[[], object],
    runs: int,
    *,
    warmup: int = 0,
    before: Callable[[], object] | None = None,
) -> float:
    """Median wall time in milliseconds of `fn` over `runs` calls, after `warmup` untimed
    calls (see `samples_ms`)."""
    for _ in range(warmup):
        fn()
    return statistics.median(samples_ms(fn, runs, before=before))
