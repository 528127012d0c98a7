"""The demo's history: answers of two models spread over the last hours, some with
problems, a few rejected, written to the store so the dashboard's charts have shape."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from services.cli.demo import migrate_store, seed_history
from services.store.api import GroupStats, StatsQuery
from services.store.sql import SqlStore

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def _stats() -> list[GroupStats]:
    async def go() -> list[GroupStats]:
        store = SqlStore()
        try:
            return await store.stats(StatsQuery(
                tenant="demo", since=NOW - timedelta(hours=7), until=NOW + timedelta(hours=1),
                group_by="model", bucket_seconds=3600))
        finally:
            await store.close()

    return asyncio.run(go())


def test_history_has_two_models_over_hours_with_problems(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEFLOW_STORE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    migrate_store()
    assert seed_history(NOW) >= 20
    groups = [g for g in _stats() if g.bucket_start is not None]
    assert {g.key for g in groups} == {"example-llm", "example-llm-mini"}
    assert len({g.bucket_start for g in groups}) >= 6  # spread over the hours, not one dot
    assert sum(g.invalid_citations for g in groups) > 0
    assert sum(g.downgraded_quotes for g in groups) > 0
    assert sum(g.uncited_sentences for g in groups) > 0
    assert sum(sum(g.rejections.values()) for g in groups) == 2
    assert all(g.latency_p50_ms for g in groups if g.formatted)


def _demo_answers() -> int:
    async def go() -> int:
        store = SqlStore()
        try:
            groups = await store.stats(StatsQuery(
                tenant="demo", since=NOW - timedelta(days=1), until=NOW + timedelta(days=1),
                group_by="model"))
            return sum(g.answers for g in groups)
        finally:
            await store.close()

    return asyncio.run(go())


def test_a_second_run_keeps_the_history_and_the_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from services.cli.demo import demo_key, seed_history_once

    monkeypatch.setenv("CITEFLOW_STORE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    migrate_store()
    first = seed_history_once(NOW)
    assert first and _demo_answers() == first
    assert seed_history_once(NOW + timedelta(minutes=5)) is None
    assert _demo_answers() == first

    saved = tmp_path / ".citeflow" / "demo-key"
    key, reused = demo_key(saved)
    assert not reused and saved.read_text().strip() == key
    assert saved.stat().st_mode & 0o777 == 0o600
    assert demo_key(saved) == (key, True)

    async def revoke() -> None:
        store = SqlStore()
        try:
            [found] = [k for k in await store.list_keys("demo")]
            await store.revoke_key(found.key_id)
        finally:
            await store.close()

    asyncio.run(revoke())
    fresh, reused = demo_key(saved)  # the saved one revoked: a new one replaces it
    assert not reused and fresh != key and saved.read_text().strip() == fresh
    saved.write_text("not-a-key\n")
    assert demo_key(saved)[1] is False
