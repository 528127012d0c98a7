"""Store URLs in the forms people write, and unusable settings as one line naming the
variable, never a traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from services.cli import main
from services.store.engine import async_url, make_engine
from services.verification.config import configured_judge


@pytest.mark.parametrize(("given", "used"), [
    ("sqlite:///data/c.db", "sqlite+aiosqlite:///data/c.db"),
    ("sqlite+aiosqlite:///data/c.db", "sqlite+aiosqlite:///data/c.db"),
    ("postgresql://u:p@db:5432/c", "postgresql+asyncpg://u:p@db:5432/c"),
    ("postgres://u:p@db/c", "postgresql+asyncpg://u:p@db/c"),
    ("postgresql+psycopg2://u@db/c", "postgresql+asyncpg://u@db/c"),
    ("postgresql+asyncpg://u@db/c", "postgresql+asyncpg://u@db/c"),
])
def test_store_urls_map_to_the_async_drivers(given: str, used: str) -> None:
    assert async_url(given) == used


@pytest.mark.parametrize("given", ["mysql://u@db/c", "db.sqlite", ""])
def test_an_unusable_store_url_names_the_variable(given: str) -> None:
    with pytest.raises(ValueError, match="^CITEFLOW_STORE_URL: "):
        async_url(given)


def test_up_migrates_a_plain_sqlite_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `citeflow up` does first with CITEFLOW_STORE_URL=sqlite:///path (a traceback
    about async drivers before)."""
    from services.cli.demo import migrate_store

    monkeypatch.setenv("CITEFLOW_STORE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    assert migrate_store() == f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    assert (tmp_path / "store.db").stat().st_size > 0


def test_a_postgres_url_reaches_the_server(pg_url: str) -> None:
    plain = sa.make_url(pg_url).set(drivername="postgres").render_as_string(hide_password=False)
    assert plain.startswith("postgres://")

    async def ask() -> int:
        engine = make_engine(plain)
        try:
            async with engine.connect() as connection:
                return int((await connection.execute(sa.text("select 1"))).scalar_one())
        finally:
            await engine.dispose()

    assert asyncio.run(ask()) == 1


@pytest.mark.parametrize(("variable", "value", "argv"), [
    ("CITEFLOW_STORE_URL", "mysql://u@db/c", ["store", "migrate"]),
    ("CITEFLOW_PARTITIONS", "many", ["topics", "create"]),
    ("CITEFLOW_BATCH_SIZE", "1.5", ["run", "scoring", "--bootstrap", "127.0.0.1:1"]),
    ("CITEFLOW_JUDGE", "oracle", ["process", "-"]),
    ("CITEFLOW_HTTP_PORT", "eighty", ["serve", "--bootstrap", "127.0.0.1:1"]),
    ("KAFKA_SECURITY_PROTOCOL", "TLS", ["run", "scoring", "--bootstrap", "127.0.0.1:1"]),
    ("KAFKA_SASL_MECHANISM", "PLAIN", ["topics", "check", "--bootstrap", "127.0.0.1:1"]),
    ("KAFKA_SSL_CA_LOCATION", "/no/such/ca.pem", ["serve", "--bootstrap", "127.0.0.1:1"]),
])
def test_unusable_settings_end_the_command_in_one_line(
        variable: str, value: str, argv: list[str]) -> None:
    configured_judge.cache_clear()  # the judge is read once a process
    try:
        result = CliRunner().invoke(main, argv, env={variable: value})
    finally:
        configured_judge.cache_clear()
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"Error: {variable}"), result.output
    assert "Traceback" not in result.output


def test_an_unreachable_store_is_one_line_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What `citeflow up` does first: a store it cannot reach is one line (a traceback before),
    the password hidden."""
    import click

    from services.cli.demo import migrate_store

    monkeypatch.setenv("CITEFLOW_STORE_URL", "postgres://u:secret@127.0.0.1:1/c")
    with pytest.raises(click.ClickException) as raised:
        migrate_store()
    message = raised.value.message
    assert message.startswith("CITEFLOW_STORE_URL=postgresql+asyncpg://u:***@127.0.0.1:1/c: ")
    assert "secret" not in message and "\n" not in message


def test_an_unreachable_broker_ends_a_command_in_one_line() -> None:
    """After CITEFLOW_CONNECT_TIMEOUT_S: the address, why, and the connection settings."""
    result = CliRunner().invoke(main, ["topics", "check", "--bootstrap", "127.0.0.1:1"],
                                env={"CITEFLOW_CONNECT_TIMEOUT_S": "0.5"})
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Error: Kafka at 127.0.0.1:1 is unreachable: 127.0.0.1:1: ")
    assert last.endswith("[PLAINTEXT]") and "Traceback" not in result.output
