"""`bench memory` pushes distinct answers (new chunks, a new word each) through all five
stage handlers and samples RSS from the start, so the memos' fill shows."""

from __future__ import annotations

from typing import Any

import pytest

from services.bench import memory


def test_series_start_and_growth_are_reported() -> None:
    result = memory.run(200, samples=2)

    assert [n for n, _ in result["series_mib"]] == [100, 200]
    assert 0 < result["start_mib"] <= result["baseline_mib"] + 1
    assert result["baseline_mib"] == result["series_mib"][0][1]
    assert result["final_mib"] == result["series_mib"][-1][1]
    assert result["answer_bytes"] > 5_000


def test_every_answer_brings_new_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real = memory.bench_answer

    def recording(*args: Any, **kwargs: Any) -> dict[str, Any]:
        answer = real(*args, **kwargs)
        seen.append(answer["sources"][0]["chunks"][0]["text"])
        return answer

    monkeypatch.setattr(memory, "bench_answer", recording)
    memory.run(20, samples=1)
    assert len(set(seen)) == 20
