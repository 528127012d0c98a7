"""The benchmarks' timing helpers: how many calls, what runs untimed."""

from __future__ import annotations

from services.bench.timing import median_ms, samples_ms


def test_samples_ms_times_each_call_after_its_untimed_before() -> None:
    calls: list[str] = []
    samples = samples_ms(lambda: calls.append("fn"), 3, before=lambda: calls.append("before"))
    assert calls == ["before", "fn"] * 3
    assert len(samples) == 3 and all(s >= 0 for s in samples)
    assert len(samples_ms(lambda: None, 0)) == 1  # at least one sample


def test_median_ms_warms_up_untimed_first() -> None:
    calls: list[int] = []
    assert median_ms(lambda: calls.append(1), 4, warmup=2) >= 0
    assert len(calls) == 6
