"""`citeflow keys create|list|revoke` and `citeflow store migrate` on an SQLite store."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner

from services.cli import main
from services.store.api import ApiKey
from services.store.sql import SqlStore


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'keys.db'}"
    monkeypatch.setenv("CITEFLOW_STORE_URL", url)
    return url


def _verify(url: str, secret: str) -> ApiKey | None:
    async def go() -> ApiKey | None:
        store = SqlStore(url)
        try:
            return await store.verify_key(secret)
        finally:
            await store.close()

    return asyncio.run(go())


def test_create_prints_the_secret_alone_on_the_last_line_and_it_verifies(url: str) -> None:
    result = CliRunner().invoke(main, ["keys", "create", "--tenant", "demo", "--scopes",
                                       "submit,read,stream", "--name", "ci", "--rate", "5"])
    assert result.exit_code == 0, result.output
    secret = result.stdout.rstrip("\n").splitlines()[-1]
    key = _verify(url, secret)
    assert key is not None
    assert (key.tenant, key.scopes, key.name, key.rate_per_s) == (
        "demo", frozenset({"submit", "read", "stream"}), "ci", 5.0)
    listed = CliRunner().invoke(main, ["keys", "list"])
    assert listed.exit_code == 0 and key.key_id in listed.stdout
    assert secret not in listed.stdout
    revoked = CliRunner().invoke(main, ["keys", "revoke", key.key_id])
    assert revoked.exit_code == 0
    assert _verify(url, secret) is None
    again = CliRunner().invoke(main, ["keys", "revoke", key.key_id])
    assert again.exit_code != 0 and "no live key" in again.output


def test_bad_scopes_and_store_down_are_clear_errors(url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    bad = CliRunner().invoke(main, ["keys", "create", "--tenant", "t", "--scopes", "root"])
    assert bad.exit_code == 2 and "unknown scopes" in bad.output
    monkeypatch.setenv("CITEFLOW_STORE_URL", "postgresql+asyncpg://u@127.0.0.1:1/x")
    down = CliRunner().invoke(main, ["keys", "list"])
    assert down.exit_code == 1 and "store unavailable" in down.output
    assert down.exception is None or isinstance(down.exception, SystemExit)


def test_store_migrate(url: str) -> None:
    first = CliRunner().invoke(main, ["store", "migrate"])
    second = CliRunner().invoke(main, ["store", "migrate"])
    assert first.exit_code == 0 and second.exit_code == 0
