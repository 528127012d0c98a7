"""`measure_store_writes` (what `citeflow bench store` and the gateway bench call): figures
for the database it ran on, distinct rows to write, and the scratch table left empty."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from services.bench.store import formatted_updates, measure_store_writes
from services.store.sql import SqlStore
from services.store.tables import answers


async def test_figures_and_an_empty_table_afterwards(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bench.db'}"
    figures = await measure_store_writes(url, rows=30, batch=7, rounds=1)
    assert (figures.database, figures.rows, figures.batch) == ("sqlite", 30, 7)
    assert figures.ours_rows_per_s > 0 and figures.bare_rows_per_s > 0
    assert figures.ratio == figures.ours_rows_per_s / figures.bare_rows_per_s
    store = SqlStore(url)
    try:
        async with store.engine.connect() as conn:
            left = (await conn.execute(sa.select(sa.func.count()).select_from(answers))).scalar()
    finally:
        await store.close()
    assert left == 0


def test_updates_are_distinct_formatted_results() -> None:
    updates = formatted_updates(5)
    assert len({u.answer_id for u in updates}) == 5
    assert len({u.event_id for u in updates}) == 5
    assert all(u.status == "formatted" and u.result and u.summary for u in updates)
