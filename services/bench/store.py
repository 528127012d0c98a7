"""Store write rate: the sink's `apply_batch` beside a bare `executemany` of the same rows.

Both write formatted results of new answers (real `answer.formatted` data, decoded by the
sink's own decoder) into the same database and the same table with the same indexes, one
transaction per batch. The reference inserts the final rows and nothing else (what a
hand-written sink that trusts its input would do); ours also reads back what exists, applies
the status rules and keeps positions: the price of idempotent, replay-safe upserts.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson
import sqlalchemy as sa

from services.bench.workload import bench_answer
from services.pipeline import process_answer
from services.runtime.stage import Message
from services.store.answer_state import update_row
from services.store.api import Position, ResultUpdate
from services.store.decode import decode_formatted
from services.store.sql import SqlStore
from services.store.tables import answers


@dataclass(frozen=True)
class StoreWriteFigures:
    """Rows per second, median over the rounds, ours beside the bare executemany."""

    database: str
    rows: int
    batch: int
    ours_rows_per_s: float
    bare_rows_per_s: float

    @property
    def ratio(self) -> float:
        return self.ours_rows_per_s / self.bare_rows_per_s if self.bare_rows_per_s else 0.0


def formatted_updates(count: int) -> list[ResultUpdate]:
    """`count` formatted results of distinct answers (one real result, re-keyed)."""
    from schemas.envelope import encode, make_event
    from schemas.formatted import AnswerFormatted

    data = bench_answer("bench-store-0", words=300, citations=12, sources=4, chunks_per_source=1,
                        chunk_chars=600, verbatim_units=4)
    data["metadata"] = {"tenant": "bench", "model": "bench-model"}
    formatted = process_answer(orjson.dumps(data), event_id="bench-store")
    assert isinstance(formatted, AnswerFormatted)
    value = encode(make_event(formatted, subject="bench-store-0", source="bench"))
    template = decode_formatted(Message("answers.formatted", value, b"bench-store-0"))
    return [
        replace(template, answer_id=f"bench-store-{i}", event_id=f"bench-event-{i}",
                position=Position("answers.formatted", i % 4, i // 4))
        for i in range(count)
    ]


async def measure_store_writes(url: str, rows: int = 2_000, batch: int = 100,
                               rounds: int = 3) -> StoreWriteFigures:
    """Our write rate and the bare executemany's on the database at `url` (its `answers`
    table is emptied before every round: point this at a scratch database)."""
    updates = formatted_updates(rows)
    now_ms = int(time.time() * 1000)
    bare_rows = [update_row(u, now_ms) for u in updates]
    store = SqlStore(url)
    try:
        await store.migrate()
        ours, bare = [], []
        for _ in range(max(1, rounds)):
            await _empty(store)
            ours.append(await _timed(store.apply_batch, updates, batch))
            await _empty(store)
            bare.append(await _timed(lambda chunk: _executemany(store, chunk), bare_rows, batch))
        await _empty(store)
        return StoreWriteFigures(store.engine.dialect.name, rows, batch,
                                 rows / statistics.median(ours), rows / statistics.median(bare))
    finally:
        await store.close()


async def _timed(write: Callable[[list[Any]], Awaitable[object]], items: Sequence[Any],
                 batch: int) -> float:
    started = time.perf_counter()
    for start in range(0, len(items), batch):
        await write(list(items[start:start + batch]))
    return time.perf_counter() - started


async def _executemany(store: SqlStore, rows: list[dict[str, Any]]) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(sa.insert(answers), rows)


async def _empty(store: SqlStore) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(sa.delete(answers))


def run(urls: list[str], rows: int, batch: int, rounds: int) -> list[StoreWriteFigures]:
    """Measure every database in turn (for the CLI)."""
    return [asyncio.run(measure_store_writes(url, rows, batch, rounds)) for url in urls]
