"""Exponential backoff with jitter, capped; attempts bounded."""

from __future__ import annotations

import random

from services.runtime.retry import RetryPolicy


def test_delay_doubles_within_jitter_bounds_and_is_capped() -> None:
    policy = RetryPolicy(max_attempts=5, base_ms=100, max_ms=1_000)
    rng = random.Random(1)
    for attempt, cap in ((1, 0.1), (2, 0.2), (3, 0.4), (4, 0.8), (5, 1.0), (9, 1.0)):
        for _ in range(50):
            delay = policy.delay(attempt, rng)
            assert cap / 2 <= delay <= cap


def test_delays_are_jittered() -> None:
    policy = RetryPolicy(base_ms=100)
    rng = random.Random(2)
    assert len({policy.delay(3, rng) for _ in range(20)}) > 1


def test_never_a_tight_loop() -> None:
    policy = RetryPolicy(base_ms=10, max_ms=10)
    assert min(policy.delay(1) for _ in range(100)) >= 0.005


def test_exhausted_after_max_attempts() -> None:
    policy = RetryPolicy(max_attempts=3)
    assert not policy.exhausted(2)
    assert policy.exhausted(3)
