"""`bench e2e` over a real broker: both sides run, alternate when repeated, and every
latency run is paced at the rate it reports (a side's own half load; the pipeline's also at
half the raw throughput)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from services.bench.e2e import Comparison, run_benchmark
from services.bench.toy import SPECS

pytestmark = pytest.mark.integration


def _small_run(bootstrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               **options: Any) -> tuple[list[Comparison], list[str]]:
    """40 answers through the toy stages; the comparisons and the printed lines."""
    monkeypatch.setenv("CITEFLOW_BENCH_LOGS", str(tmp_path))
    lines: list[str] = []
    with open(tmp_path / "console.txt", "w") as console:
        runs = run_benchmark(count=40, latency_count=10, partitions=1, bootstrap=bootstrap,
                             console=Console(file=console), out=lines.append,
                             stage_specs=list(SPECS), **options)
    return runs, lines


def test_repeated_runs_report_both_latencies_and_medians(
    bootstrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs, lines = _small_run(bootstrap, tmp_path, monkeypatch, repeat=2)

    assert len(runs) == 2
    for run in runs:
        raw, pipe = run.raw, run.pipeline
        assert raw.throughput > 0 and pipe.throughput > 0
        assert raw.half_load.rate == pytest.approx(raw.throughput / 2)
        assert pipe.half_load.rate == pytest.approx(pipe.throughput / 2)
        assert raw.at_rate is None
        assert pipe.at_rate is not None and pipe.at_rate.rate == pytest.approx(raw.throughput / 2)
        for latency in (raw.half_load, pipe.half_load, pipe.at_rate):
            assert 0 < latency.p50_ms <= latency.p99_ms
        # CPU is read in clock ticks (10 ms): a 40-answer run may show none.
        assert raw.hop_cpu_ms >= 0 and pipe.hop_cpu_ms >= 0
        assert len(raw.hop_cpu_each_ms) == len(pipe.hop_cpu_each_ms) == 5
        assert pipe.hop_cpu_ms == pytest.approx(sum(pipe.hop_cpu_each_ms))
    assert [line.split(":")[0] for line in lines[:2]] == ["run 1", "run 2"]
    # One CPU line per hop, named by its stage, before the medians.
    assert [line.split(":")[0] for line in lines[2:7]] == [
        f"hop {i} toy-{stage.split(':')[-1]}" for i, stage in enumerate(SPECS, 1)
    ]
    assert lines[-1].startswith("median of 2: throughput ratio=")
    # Five raw hops and five toy stages per run, each with its own log.
    assert {p.name for p in tmp_path.glob("*.log")} >= {f"raw-hop{i}.log" for i in range(5)}


def test_tls_runs_both_sides_again_over_tls_and_reports_both_ratios(
    bootstrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs, lines = _small_run(bootstrap, tmp_path, monkeypatch, repeat=1, tls=True)
    assert len(runs) == 1  # the plaintext comparison
    assert "-- plaintext" in lines and "-- TLS" in lines
    tls_lines = lines[lines.index("-- TLS"):]
    assert tls_lines[1].startswith("run 1: raw_throughput=")
    assert lines[-1].startswith("throughput ratio (pipeline / raw), median of each: plaintext ")
    assert ", TLS " in lines[-1]
    # The TLS side went through the terminator: it logged the hops' connections.
    assert "accepted connection" in (tmp_path / "tls" / "stunnel.log").read_text()
