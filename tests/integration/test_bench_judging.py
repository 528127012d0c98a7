"""`citeflow bench judging` on the embedded broker with the fake OpenAI-compatible server:
both runs complete, every answer is refined, and no refinement arrives before the model
answered (the refinement includes the model's time)."""

from __future__ import annotations

import pytest

from services.bench.judging import run_benchmark

pytestmark = pytest.mark.integration


def test_judging_bench_measures_both_runs_and_the_refinement() -> None:
    found = run_benchmark(count=3, rate=2.0, model_ms=200.0, partitions=1,
                          progress=lambda _: None)
    assert found.answers == 3 and found.model_ms == 200.0
    for spread in (found.lexical_without_judge, found.lexical_with_judge, found.refinement):
        assert 0 < spread.median_ms <= spread.p99_ms
    assert found.refinement.median_ms >= found.model_ms
    assert found.overhead.median_ms == pytest.approx(found.refinement.median_ms - 200.0)
