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


def test_create_names_the_store_it_wrote_to_with_the_password_masked(
        url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(main, ["keys", "create", "--tenant", "t", "--scopes", "read"])
    assert result.exit_code == 0, result.output
    assert f"key stored in {url}" in result.stderr
    monkeypatch.setenv("CITEFLOW_STORE_URL", "postgresql://u:secret@127.0.0.1:1/x")
    down = CliRunner().invoke(main, ["store", "migrate"])
    assert down.exit_code == 1 and "secret" not in down.output


def test_create_refuses_a_new_sqlite_file_when_dotenv_names_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gateway reads the store ./.env names; a key written to a new SQLite file here
    would get 401 there."""
    monkeypatch.delenv("CITEFLOW_STORE_URL", raising=False)
    monkeypatch.setenv("CITEFLOW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        "CITEFLOW_STORE_URL=postgresql://citeflow:hunter2@db:5432/citeflow\n")
    result = CliRunner().invoke(main, ["keys", "create", "--tenant", "t", "--scopes", "read"])
    assert result.exit_code == 1
    assert "CITEFLOW_STORE_URL is set in ./.env (postgresql://citeflow:***@db:5432/citeflow)" \
        in result.output
    assert "hunter2" not in result.output
    assert not (tmp_path / "data" / "citeflow.db").exists()
    # Naming the store, or an SQLite store that exists already, is fine.
    url = f"sqlite:///{tmp_path / 'named.db'}"
    named = CliRunner().invoke(main, ["keys", "create", "--tenant", "t", "--scopes", "read",
                                      "--store-url", url])
    assert named.exit_code == 0 and "key stored in sqlite+aiosqlite:///" in named.stderr


def test_up_prints_the_store_url_with_its_password_masked(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import click

    from services.cli.demo import migrate_store

    monkeypatch.setenv("CITEFLOW_STORE_URL", "postgresql://u:secret@127.0.0.1:1/c")
    with pytest.raises(click.ClickException) as raised:
        migrate_store()
    assert "secret" not in raised.value.message
    monkeypatch.setenv("CITEFLOW_STORE_URL", f"sqlite:///{tmp_path / 's.db'}")
    assert migrate_store() == f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
