"""The store's database: its URL, the async engine, schema migrations, outage errors."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from services.private_files import private_file
from services.store.api import StoreUnavailable

STORE_URL_ENV = "CITEFLOW_STORE_URL"
DATA_DIR_ENV = "CITEFLOW_DATA_DIR"
DEFAULT_DATA_DIR = ".citeflow"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Any constant: the PostgreSQL advisory lock that serialises concurrent `migrate()` calls.
_MIGRATE_LOCK = 7_314_001
# How long SQLite waits for another writer (the gateway and the sink share the file).
_SQLITE_BUSY_MS = 30_000


def store_url(environ: dict[str, str] | None = None) -> str:
    """`CITEFLOW_STORE_URL`, else an SQLite file in the data directory."""
    env = os.environ if environ is None else environ
    url = env.get(STORE_URL_ENV, "").strip()
    if url:
        return async_url(url)
    data_dir = Path(env.get(DATA_DIR_ENV, "") or DEFAULT_DATA_DIR)
    return f"sqlite+aiosqlite:///{data_dir / 'citeflow.db'}"


def shown_url(url: str) -> str:
    """`url` as printed: its password masked."""
    return sa.make_url(url).render_as_string(hide_password=True)


# The URL forms people write, to the async drivers the store runs on.
_ASYNC_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg",
                  "postgres": "postgresql+asyncpg", "postgresql+psycopg2": "postgresql+asyncpg",
                  "postgresql+psycopg": "postgresql+asyncpg"}
_SUPPORTED = "sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DB"


def async_url(url: str) -> str:
    """`url` with its scheme mapped to the async driver (`sqlite:///…` to aiosqlite,
    `postgresql://…` and `postgres://…` to asyncpg); a ValueError naming CITEFLOW_STORE_URL
    for anything else."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep or scheme.lower() not in (*_ASYNC_DRIVERS, *_ASYNC_DRIVERS.values()):
        shown = scheme if sep else url[:40]
        raise ValueError(f"{STORE_URL_ENV}: unsupported database {shown!r} (use {_SUPPORTED})")
    return f"{_ASYNC_DRIVERS.get(scheme.lower(), scheme.lower())}://{rest}"


def make_engine(url: str, **options: Any) -> AsyncEngine:
    """An async engine for `url` (any form `async_url` maps)."""
    try:
        parsed = sa.make_url(async_url(url))
    except exc.ArgumentError as error:
        raise ValueError(f"{STORE_URL_ENV}: not a database URL ({error})") from None
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed, **options)
    if parsed.get_backend_name() == "postgresql":
        # pre-ping: after a server restart, pooled connections are found dead and replaced
        # instead of failing the next statement.
        connect_args = {"timeout": 10, "command_timeout": 60}
        return create_async_engine(parsed, pool_pre_ping=True, connect_args=connect_args,
                                   **options)
    raise ValueError(f"{STORE_URL_ENV}: unsupported database {parsed.drivername!r} "
                     f"(use {_SUPPORTED})")


def _sqlite_engine(url: sa.URL, **options: Any) -> AsyncEngine:
    if url.database and url.database != ":memory:":
        # Every tenant's results: 0600 before SQLite opens it (a new WAL or shared-memory
        # file takes the database file's mode; older ones are set here), in a directory
        # made 0700.
        database = private_file(Path(url.database))
        for companion in (Path(f"{database}-wal"), Path(f"{database}-shm")):
            if companion.exists():
                private_file(companion)
    engine = create_async_engine(url, **options)

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        # Transactions are begun by us (below), not by the driver's implicit BEGIN.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={_SQLITE_BUSY_MS}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(connection: sa.Connection) -> None:
        # Writers take the write lock at BEGIN: a deferred transaction that reads and then
        # writes would fail with "database is locked" when another writer got in between.
        immediate = connection.get_execution_options().get("immediate", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


# Errors that mean the database is out of reach (down, restarting, locked, a dead pooled
# connection): the operation may succeed later. Anything else is a bug and propagates.
_OUTAGES: tuple[type[BaseException], ...] = (
    exc.OperationalError, exc.InterfaceError, exc.DisconnectionError, OSError, TimeoutError,
    asyncio.TimeoutError,
)


# PostgreSQL SQLSTATEs of a server out of reach: connection exceptions (class 08), shutting
# down (57P01 admin, 57P02 crash), starting or stopping (57P03 "cannot connect now"), and
# too many connections (53300); and invalid authorization (class 28, a wrong password):
# unusable until an operator fixes it, like an outage (one line naming the cause, retried),
# not a wrong statement.
_OUTAGE_STATES = ("08", "57P01", "57P02", "57P03", "53300", "28")


def is_outage(error: BaseException) -> bool:
    """Whether `error` means the database is unavailable (not a bug in the statement)."""
    if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
        return True
    if isinstance(error, _OUTAGES):
        return True
    # Through SQLAlchemy an asyncpg server error arrives as a generic DBAPIError whose
    # `orig` keeps only the SQLSTATE (class name "Error"): "the database system is starting
    # up" was a statement error, and the sink dead-lettered the record it was writing.
    orig = getattr(error, "orig", None) or error
    state = getattr(orig, "sqlstate", None)
    if isinstance(state, str) and state.startswith(_OUTAGE_STATES):
        return True
    # asyncpg's own errors (the hot path's connections) say what they are by name
    # (ConnectionDoesNotExistError, CannotConnectNowError ...).
    name = type(orig).__name__
    return "Connection" in name or "CannotConnect" in name or "ShutdownError" in name


@asynccontextmanager
async def transaction(engine: AsyncEngine, write: bool = True) -> AsyncIterator[AsyncConnection]:
    """One transaction; an outage becomes StoreUnavailable (the gateway answers 503)."""
    try:
        async with engine.connect() as conn:
            if write:
                await conn.execution_options(immediate=True)
            async with conn.begin():
                yield conn
    except StoreUnavailable:
        raise
    except Exception as error:
        if is_outage(error):
            raise StoreUnavailable(f"store unavailable: {type(error).__name__}: {error}") from error
        raise


async def migrate(engine: AsyncEngine) -> None:
    """Bring the schema to the newest Alembic revision; concurrent callers serialise (an
    advisory lock on PostgreSQL, the write lock on SQLite) and the later ones find nothing
    to do."""
    async with transaction(engine) as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(sa.text(f"SELECT pg_advisory_xact_lock({_MIGRATE_LOCK})"))
        await conn.run_sync(upgrade)


def upgrade(connection: sa.Connection, revision: str = "head") -> None:
    """Run the Alembic migrations on `connection` up to `revision`."""
    from alembic import command

    command.upgrade(_alembic_config(connection), revision)


def downgrade(connection: sa.Connection, revision: str) -> None:
    """Undo the Alembic migrations on `connection` after `revision`."""
    from alembic import command

    command.downgrade(_alembic_config(connection), revision)


def _alembic_config(connection: sa.Connection) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def current_revision(connection: sa.Connection) -> str | None:
    """The schema revision of the database behind `connection` (None: not migrated)."""
    from alembic.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()
