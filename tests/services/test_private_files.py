"""The SQLite results store, its WAL and the reader's page cache held every tenant's data
world-readable (0644 files, a 0755 data directory)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.gateway.documents.renderer import PngCache
from services.store.sql import SqlStore


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_the_sqlite_store_and_its_wal_are_readable_by_their_owner_only(
        tmp_path: Path) -> None:
    database = tmp_path / "data" / "citeflow.db"
    store = SqlStore(f"sqlite+aiosqlite:///{database}")
    try:
        await store.migrate()
        await store.create_key("acme", frozenset({"read"}))
        files = [database, Path(f"{database}-wal"), Path(f"{database}-shm")]
        assert all(f.exists() for f in files)
        assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
        assert _mode(database.parent) == 0o700
    finally:
        await store.close()


async def test_an_existing_world_readable_store_is_made_private(tmp_path: Path) -> None:
    database = tmp_path / "citeflow.db"
    database.touch(mode=0o644)
    store = SqlStore(f"sqlite+aiosqlite:///{database}")
    try:
        await store.migrate()
        assert _mode(database) == 0o600
    finally:
        await store.close()


def test_the_reader_page_cache_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    cache = PngCache(tmp_path / "data" / "reader-cache", 1 << 20)
    cache.put("ab" + "0" * 62, b"\x89PNG page")
    page = cache.path("ab" + "0" * 62)
    assert _mode(page) == 0o600
    assert _mode(page.parent) == 0o700 and _mode(tmp_path / "data" / "reader-cache") == 0o700
    assert cache.get("ab" + "0" * 62) == b"\x89PNG page"
