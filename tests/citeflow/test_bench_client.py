"""`citeflow bench client` runs end to end (a real gateway on the embedded broker) and
reports every side of both modes and the client-side cost; no figure is judged here."""

from __future__ import annotations

import pytest

from services.bench.client import run_benchmark

pytestmark = pytest.mark.integration


def test_bench_client_reports_both_sides_of_both_modes() -> None:
    lines: list[str] = []
    run_benchmark(seconds=0.3, concurrency=2, repeat=1, progress=lambda _: None,
                  out=lines.append)
    text = "\n".join(lines)
    for mode in ("sync", "async x2"):
        for side in ("client", "raw httpx"):
            assert any(line.startswith(mode) and side in line and "/s" not in line
                       for line in lines), (mode, side, text)
        assert f"{mode:<12} client overhead" in text
    assert "client overhead" in lines[-1] and " us per submit" in lines[-1]
