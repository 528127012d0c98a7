"""The Batcher coalesces concurrent calls and hands failures to every caller."""

from __future__ import annotations

import asyncio

import pytest

from services.gateway.batching import Batcher


async def test_concurrent_calls_share_batches_and_results() -> None:
    batches: list[list[int]] = []

    async def run(items: list[int]) -> list[int]:
        batches.append(items)
        await asyncio.sleep(0.01)
        return [i * 2 for i in items]

    batcher: Batcher[int, list[int]] = Batcher(run, max_items=10)
    results = await asyncio.gather(*(batcher.call(i) for i in range(25)))
    assert sorted(i for batch in batches for i in batch) == list(range(25))
    assert len(batches) < 25 and max(len(b) for b in batches) <= 10
    for i, result in enumerate(results):
        assert i * 2 in result


async def test_a_failed_batch_fails_its_callers_only() -> None:
    async def run(items: list[int]) -> int:
        if 3 in items:
            raise RuntimeError("boom")
        return len(items)

    batcher: Batcher[int, int] = Batcher(run, max_items=1)
    outcomes = await asyncio.gather(*(batcher.call(i) for i in range(5)),
                                    return_exceptions=True)
    assert [isinstance(o, RuntimeError) for o in outcomes] == [False, False, False, True, False]
    assert await batcher.call(9) == 1
    with pytest.raises(RuntimeError):
        await batcher.call(3)
