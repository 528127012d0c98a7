"""Results-store commands: API keys (`keys create|list|revoke`), `store migrate`, and
`bench store`. The store is CITEFLOW_STORE_URL (default: the SQLite file in the data dir)."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Column, Table

from services.cli import bench, main
from services.cli.options import config_options, runtime_config

err = Console(stderr=True)
T = TypeVar("T")


def _with_store(action: Callable[[Any], Awaitable[T]], url: str | None = None) -> T:
    """Run `action(store)` on the migrated store (`url`, else CITEFLOW_STORE_URL or the
    SQLite file); a store that is down is a clean error."""
    from services.store.api import StoreUnavailable
    from services.store.sql import SqlStore

    async def go() -> T:
        store = SqlStore(url) if url else SqlStore()
        try:
            await store.migrate()
            return await action(store)
        finally:
            await store.close()

    try:
        return asyncio.run(go())
    except (StoreUnavailable, ValueError) as exc:
        raise click.ClickException(str(exc)) from None


@main.group()
def keys() -> None:
    """API keys of the gateway: each has a tenant and scopes (submit, read, stream, admin).

    They live in the results store the gateway reads: CITEFLOW_STORE_URL (or --store-url),
    else the SQLite file in CITEFLOW_DATA_DIR."""


def key_store(url: str | None) -> str:
    """The store the keys commands use: `url`, CITEFLOW_STORE_URL, else the SQLite file in
    the data directory, refused when that file does not exist yet while ./.env names
    another store (the gateway reads that one: a key in a new file would get 401)."""
    import sqlalchemy as sa
    from dotenv import dotenv_values

    from services.store.engine import STORE_URL_ENV, async_url, shown_url, store_url

    if url:
        return async_url(url)
    found = store_url()
    database = Path(sa.make_url(found).database or "")
    if os.environ.get(STORE_URL_ENV, "").strip() or database.exists():
        return found
    elsewhere = dotenv_values(".env").get(STORE_URL_ENV) if Path(".env").is_file() else None
    if elsewhere:
        raise click.ClickException(
            f"{STORE_URL_ENV} is set in ./.env ({shown_url(elsewhere)}) but not in this "
            f"shell: the gateway reads that store, so no new SQLite store is made at "
            f"{database}. Export it (set -a; . ./.env; set +a) or pass --store-url")
    return found


def store_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--store-url", metavar="URL",
                        help="Results store [env CITEFLOW_STORE_URL; the SQLite file in "
                             "CITEFLOW_DATA_DIR or .citeflow/]")(fn)


@keys.command("create")
@click.option("--tenant", required=True, help="The tenant the key acts for")
@click.option("--scopes", required=True, metavar="LIST",
              help="Comma-separated: submit, read, stream, ops (/metrics, /v1/pipeline), admin")
@click.option("--name", help="A label shown in `keys list`")
@click.option("--rate", type=float, help="Requests per second allowed [default: the gateway's]")
@store_option
def keys_create(tenant: str, scopes: str, name: str | None, rate: float | None,
                store_url: str | None) -> None:
    """Create a key. Its secret is printed once, alone on the last line of stdout: only a
    hash of it is stored. Says which store it wrote to (the gateway must read the same)."""
    from services.store.engine import shown_url
    from services.store.key_secrets import parse_scopes

    try:
        wanted = parse_scopes(scopes)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--scopes") from None
    url = key_store(store_url)
    key, secret = _with_store(lambda s: s.create_key(tenant, wanted, name, rate), url)
    click.echo(f"key stored in {shown_url(url)}", err=True)
    click.echo(f"key {key.key_id} for tenant {key.tenant}, scopes "
               f"{','.join(sorted(key.scopes))} (the secret is shown only now):")
    click.echo(secret)


@keys.command("list")
@click.option("--tenant", help="Only this tenant's keys")
@store_option
def keys_list(tenant: str | None, store_url: str | None) -> None:
    """List keys (never their secrets)."""
    found = _with_store(lambda s: s.list_keys(tenant), key_store(store_url))
    table = Table("tenant", "scopes", "name", "rate/s", "created", "revoked")
    table.columns.insert(0, Column("key id", no_wrap=True, min_width=16))
    for key in found:
        table.add_row(key.key_id, key.tenant, ",".join(sorted(key.scopes)), key.name or "",
                      "" if key.rate_per_s is None else f"{key.rate_per_s:g}",
                      key.created_at.isoformat(timespec="seconds"),
                      key.revoked_at.isoformat(timespec="seconds") if key.revoked_at else "")
    Console().print(table)


@keys.command("revoke")
@click.argument("key_id")
@store_option
def keys_revoke(key_id: str, store_url: str | None) -> None:
    """Revoke a key: requests with it are refused from now on."""
    if not _with_store(lambda s: s.revoke_key(key_id), key_store(store_url)):
        raise click.ClickException(f"no live key {key_id!r}")
    click.echo(f"revoked {key_id}")


@main.group()
def store() -> None:
    """The results store (SQLite by default, PostgreSQL via CITEFLOW_STORE_URL)."""


@store.command("migrate")
def store_migrate() -> None:
    """Bring the store's schema to the newest version (safe to run again or concurrently)."""
    from services.store.engine import shown_url, store_url

    async def noop(_store: Any) -> None:
        return None

    _with_store(noop)
    err.print(f"store schema up to date: {shown_url(store_url())}")


@bench.command("store")
@click.option("--url", "urls", multiple=True, metavar="URL",
              help="Scratch database(s) to measure (its answers table is emptied!) "
                   "[default: a temporary SQLite file]")
@click.option("--rows", type=int, default=2_000, show_default=True)
@click.option("--batch", type=int, default=100, show_default=True)
@click.option("--rounds", type=int, default=3, show_default=True)
def bench_store(urls: tuple[str, ...], rows: int, batch: int, rounds: int) -> None:
    """Store write rate (the sink's apply_batch) beside a bare executemany of the same rows
    into the same database."""
    from services.bench.store import run

    with tempfile.TemporaryDirectory() as tmp:
        targets = list(urls) or [f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"]
        table = Table("database", "rows", "batch", "ours rows/s", "bare executemany rows/s",
                      "ratio")
        for figures in run(targets, rows, batch, rounds):
            table.add_row(figures.database, str(figures.rows), str(figures.batch),
                          f"{figures.ours_rows_per_s:,.0f}", f"{figures.bare_rows_per_s:,.0f}",
                          f"{figures.ratio:.2f}")
        Console().print(table)



@main.group()
def answers() -> None:
    """Answers in the results store."""


@answers.command("redrive")
@config_options()
@click.option("--older-than", type=click.FloatRange(min=0), default=0.0, show_default=True,
              metavar="SECONDS", help="Only answers submitted at least this long ago")
def answers_redrive(older_than: float, **flags: Any) -> None:
    """Publish again every answer the gateway accepted (202) that has no outcome yet
    (formatted, rejected or dead-lettered), from the body the store kept: after a broker
    lost them (the embedded broker keeps its log in memory). Idempotent: the same event,
    the same id; the store keeps one outcome per answer."""
    from services.gateway.problems import ProblemError
    from services.gateway.producer import AnswerProducer
    from services.gateway.redrive import redrive
    from services.store.engine import shown_url, store_url

    config = runtime_config(**flags)

    async def go(store: Any) -> int:
        producer = AnswerProducer(config, send_timeout_s=30.0, retry_after_s=1)
        await producer.start()
        try:
            await asyncio.wait_for(producer.connected(), config.connect_timeout_s)
            return await redrive(store, producer, older_than)
        except (ProblemError, TimeoutError):
            raise click.ClickException(
                f"the broker at {config.bootstrap_servers} did not take the answers in "
                "time; nothing is lost: run it again") from None
        finally:
            await producer.stop()

    sent = _with_store(go)
    err.print(f"re-drove {sent} unfinished answer(s) from {shown_url(store_url())} "
              f"to {config.physical('answers.submitted')}")
