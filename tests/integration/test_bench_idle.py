"""`bench idle` on the embedded broker: each setting starts its own broker and five stage
processes with that fetch wait, measures an idle window and single answers end to end."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from services.bench.idle import run_idle_benchmark

pytestmark = pytest.mark.integration


def test_each_setting_measures_idle_cpu_and_single_answer_latency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEFLOW_BENCH_LOGS", str(tmp_path))
    results = run_idle_benchmark([30], idle_s=1.0, rate=20.0, count=5, partitions=1,
                                 progress=lambda _: None, settle_s=1.0)

    [result] = results
    assert result.fetch_max_wait_ms == 30
    assert result.stages_cores >= 0 and result.broker_cores >= 0
    assert 0 < result.latency_p50_ms <= result.latency_p90_ms
    # Each of the five stage processes handled the warm-up and the paced answers.
    logs = sorted(tmp_path.glob("idle-30-*.log"))
    assert len(logs) == 5
    for log in logs:
        stopped = [orjson.loads(line) for line in log.read_text().splitlines()
                   if '"stopped"' in line]
        assert stopped and stopped[-1]["records"] >= 5 + 5, log.name
