"""The store the store tests share: migrated to the newest revision, closed after."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from services.store.sql import SqlStore


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[SqlStore]:
    s = SqlStore(store_url)
    await s.migrate()
    try:
        yield s
    finally:
        await s.close()
