"""The stream benchmark's machinery on the embedded broker (no figures are judged here):
both servers start, every client connects and receives every record, counts add up."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from services.bench.gateway import Bench
from services.bench.stream import Scenario, run_stream
from services.broker import create_topics, pipeline_topics

pytestmark = pytest.mark.integration


def test_every_client_of_both_servers_receives_every_record(bootstrap: str,
                                                            tmp_path: Path) -> None:
    bench = Bench(bootstrap, "benchstream.", tmp_path,
                  f"sqlite+aiosqlite:///{tmp_path / 'store.db'}")
    asyncio.run(create_topics(bootstrap, pipeline_topics([], bench.prefix), 2))
    rows = run_stream(bench, [Scenario("5", 5, 20.0, "summary")], 2.0, lambda _: None)
    assert [r.server for r in rows] == ["citeflow gateway", "bare fan-out"]
    for row in rows:
        assert row.expected_per_s == 5 * 20.0
        assert row.deliveries_per_s == row.expected_per_s  # 40 records x 5 clients
        assert row.p50_ms is not None and row.p99_ms is not None and row.p99_ms > 0
        assert row.refused == 0
    assert rows[0].cut_off == 0 and rows[1].cut_off is None
