"""Shared fixtures: the corpus directory (skipped cleanly when absent) and a headless
browser (skipped where there is none)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = (REPO_ROOT / ".." / "shared" / "corpus").resolve()


def corpus_path(*parts: str) -> Path:
    """A path inside ../shared/corpus; skips the calling test when it is absent."""
    path = CORPUS_DIR.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    return path


@pytest.fixture
def corpus() -> Path:
    """The corpus directory; skips the test when it is absent."""
    return corpus_path()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session (`tests.browser`); skips the test where there
    is none."""
    from tests.browser import start_browser

    driver = start_browser()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A PostgreSQL server for the session (tests.pg); skips the test where none can run."""
    from tests.pg import PgUnavailable, pg_server

    try:
        with pg_server() as server:
            yield server
    except PgUnavailable as exc:
        pytest.skip(f"PostgreSQL not available: {exc}")


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """The URL of a fresh, empty PostgreSQL database."""
    return str(pg_server.new_database())


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh store database URL, once SQLite and once PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))
