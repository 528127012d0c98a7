"""The store's two operations on the gateway's request path — a submit's claim and a read
of one answer by id — written for the request rate rather than through the query builder.

On SQLite both run on threads of this module's own, with their own connections, each
operation one call there: through aiosqlite every statement is several hops between its
thread and the event loop, and under submit load each hop waits behind a loop iteration full
of requests (a read by id took about 10 hops, 40 ms and more at 1,700 submits/s). SQLite runs
with the GIL released: the event loop goes on serving meanwhile.

A batch of claims inserts the answers not there yet as `submitted` (only the columns a
submission knows; the rest stay NULL) and reads back the ones that were, in one
transaction:
- SQLite: BEGIN IMMEDIATE; SELECT the ids; INSERT the rest; COMMIT. The write lock is taken
  at BEGIN, so no other writer (another gateway worker, the sink) can insert between the
  SELECT and the INSERT.
- PostgreSQL: one INSERT ... SELECT FROM unnest(...) ON CONFLICT DO NOTHING RETURNING
  (atomic on its own: concurrent gateways cannot both create an id), then one SELECT of the
  ids that were already there, on an asyncpg pool of this module's own (SQLAlchemy's adds a
  pre-ping and a reset round trip to every checkout). The rows go in ordered by (answer id,
  tenant), as the sink's do (sql.py): an insert meeting another transaction's uncommitted
  row of the same key waits for it, so two batches taking their keys in different orders
  could each wait for the other (PostgreSQL's deadlock error); in one order the first to
  reach a key goes on.

An answer is its (answer_id, tenant) (migration 0003): a batch may hold several tenants'
submissions (the gateway batches concurrent requests), and each tenant's answer id is its
own row, so another tenant's answer of the same id is never read, compared or reported.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import asyncpg
import orjson
from sqlalchemy import URL

from services.store.answer_state import to_ms
from services.store.api import Claim, StoreUnavailable, Submission

# The columns a claim fills in, in this order (submitted_event_id stays NULL until the sink
# sees the record on `answers.submitted`: the mark that the broker holds it).
_COLUMNS = ("answer_id", "tenant", "status", "model", "answered_at_ms", "submitted_at_ms",
            "body_sha256", "event_id", "event_time_ms", "updated_at_ms", "submitted_body")
# What is read of an answer already there: enough to tell same body / conflict / stored.
_EXISTING = "answer_id, tenant, status, body_sha256, submitted_event_id"
_SQLITE_ROW = f"({', '.join('?' * len(_COLUMNS))})"
# Rows per statement: 5,000 bound values, within SQLite's limit since 3.32 (32,766).
_SQLITE_CHUNK = 500
_PG_TYPES = ("text", "text", "text", "text", "bigint", "bigint", "text", "text", "bigint",
             "bigint", "bytea")
_PG_INSERT = (f"INSERT INTO answers ({', '.join(_COLUMNS)}) SELECT * FROM unnest("
              + ", ".join(f"${n}::{t}[]" for n, t in enumerate(_PG_TYPES, 1))
              + ") ON CONFLICT DO NOTHING RETURNING answer_id, tenant")
_PG_EXISTING = (f"SELECT {_EXISTING} FROM answers WHERE (answer_id, tenant) IN "
                "(SELECT * FROM unnest($1::text[], $2::text[]))")
Key = tuple[str, str]  # (answer_id, tenant)
_PG_POOL = 4  # connections: claims are one batch at a time, reads beside them
_SQLITE_BUSY_S = 30.0  # as the engine's busy_timeout: the sink and gateways share the file


def claim_rows(submissions: Sequence[Submission], now_ms: int) -> dict[Key, tuple[Any, ...]]:
    """One row (in `_COLUMNS` order) per (answer id, tenant); the first submission wins."""
    rows: dict[Key, tuple[Any, ...]] = {}
    for s in submissions:
        if (s.answer_id, s.tenant) not in rows:
            at = to_ms(s.submitted_at)
            rows[(s.answer_id, s.tenant)] = (s.answer_id, s.tenant, "submitted", s.model, at,
                                             at, s.body_sha256, s.event_id, at, now_ms,
                                             s.body)
    return rows


def classify(rows: dict[Key, tuple[Any, ...]], inserted: set[Key],
             existing: Mapping[Key, Sequence[Any]]) -> dict[Key, Claim]:
    """Each (answer id, tenant)'s claim: `created` when this batch inserted it; else
    `conflict` when the tenant's row there has another body, `same` otherwise (`stored`
    when the broker is known to hold it: the sink saw the submission, or a later status
    exists). Another tenant's answer of the same id is another key: never seen here."""
    claims: dict[Key, Claim] = {}
    for key, row in rows.items():
        if key in inserted:
            claims[key] = Claim("created", False)
            continue
        there = existing.get(key)
        if there is None:
            # Released by another request between the INSERT and the SELECT (PostgreSQL):
            # not known to be stored, so the caller produces (and the sink records it).
            claims[key] = Claim("same", False)
            continue
        _, _, status, body_sha256, submitted_event_id = there
        wanted_sha = row[6]
        other_body = body_sha256 is not None and wanted_sha is not None \
            and body_sha256 != wanted_sha
        stored = status != "submitted" or submitted_event_id is not None
        claims[key] = Claim("conflict" if other_body else "same", stored)
    return claims


class SqliteHotPath:
    """Claims and reads by id on an SQLite file, each on a thread with its own connection
    (two threads: a read does not wait for a claim batch)."""

    def __init__(self, path: str) -> None:
        if not path or path == ":memory:":
            raise ValueError("the SQLite results store must be a file, not an in-memory "
                             "database (the gateway, the sink and the readers share it)")
        self._path = path
        self._pool = ThreadPoolExecutor(2, thread_name_prefix="citeflow-sqlite")
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []

    async def claim(self, submissions: Sequence[Submission], now_ms: int) -> dict[Key, Claim]:
        rows = claim_rows(submissions, now_ms)
        try:
            inserted, existing = await asyncio.get_running_loop().run_in_executor(
                self._pool, self._claim, list(rows.values()))
        except sqlite3.Error as error:
            raise StoreUnavailable(f"store unavailable: {type(error).__name__}: {error}") \
                from error
        return classify(rows, inserted, existing)

    async def get_row(self, answer_id: str, tenant: str | None) -> dict[str, Any] | None:
        """The answer's row (columns by name, `detail` decoded), None when there is none
        (or it is another tenant's)."""
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._pool, self._get_row, answer_id, tenant)
        except sqlite3.Error as error:
            raise StoreUnavailable(f"store unavailable: {type(error).__name__}: {error}") \
                from error

    def _get_row(self, answer_id: str, tenant: str | None) -> dict[str, Any] | None:
        # Any tenant (None): of an id several tenants use, the smallest tenant's answer.
        cursor = self._connection().execute(
            "SELECT * FROM answers WHERE answer_id = ? ORDER BY tenant LIMIT 1"
            if tenant is None else
            "SELECT * FROM answers WHERE answer_id = ? AND tenant = ?",
            (answer_id,) if tenant is None else (answer_id, tenant))
        found = cursor.fetchone()
        if found is None:
            return None
        row = dict(zip([column[0] for column in cursor.description], found, strict=True))
        if row["detail"] is not None:  # a JSON column: SQLAlchemy's type decodes it
            row["detail"] = orjson.loads(row["detail"])
        return row

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._path, timeout=_SQLITE_BUSY_S, isolation_level=None,
                                   check_same_thread=False)  # closed by close(), after
            self._opened.append(conn)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def _claim(self, rows: list[tuple[Any, ...]]
               ) -> tuple[set[Key], dict[Key, Sequence[Any]]]:
        # Four statements a batch, each one step of SQLite (one multi-row INSERT, not an
        # executemany): this thread gives up and takes back the GIL around every step, and
        # each take-back may wait for the busy event loop's switch interval.
        conn = self._connection()
        existing: dict[Key, Sequence[Any]] = {}
        conn.execute("BEGIN IMMEDIATE")
        try:
            for start in range(0, len(rows), _SQLITE_CHUNK):
                chunk = rows[start:start + _SQLITE_CHUNK]
                keys = [value for row in chunk for value in row[:2]]
                found = {(r[0], r[1]): r for r in conn.execute(
                    f"SELECT {_EXISTING} FROM answers WHERE (answer_id, tenant) IN "
                    f"(VALUES {', '.join(['(?, ?)'] * len(chunk))})", keys)}
                new = [value for row in chunk if (row[0], row[1]) not in found
                       for value in row]
                if new:
                    conn.execute(f"INSERT INTO answers ({', '.join(_COLUMNS)}) VALUES "
                                 + ", ".join([_SQLITE_ROW] * (len(new) // len(_COLUMNS)))
                                 + " ON CONFLICT DO NOTHING", new)
                existing.update(found)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return {(row[0], row[1]) for row in rows if (row[0], row[1]) not in existing}, existing

    async def close(self) -> None:
        self._pool.shutdown()
        for conn in self._opened:  # no thread uses them any more
            conn.close()
        self._opened.clear()


class PgHotPath:
    """Claims and reads by id on PostgreSQL through a small asyncpg pool of its own (opened
    on first use): no pool pre-ping, no reset on return, no transaction wrapper — a claim is
    one or two statements, a read one. No minimum size: a pool with one reconnects in the
    background while the server is down, and logs every attempt."""

    def __init__(self, url: URL) -> None:
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    async def _connections(self) -> asyncpg.Pool:
        if self._pool is None:
            async with self._opening:
                if self._pool is None:
                    self._pool = await asyncpg.create_pool(
                        self._dsn, min_size=0, max_size=_PG_POOL, timeout=10,
                        command_timeout=60)
        return self._pool

    async def claim(self, submissions: Sequence[Submission], now_ms: int) -> dict[Key, Claim]:
        rows = claim_rows(submissions, now_ms)
        # Sorted: by (answer_id, tenant) first, the order every writer takes keys in.
        columns = [list(column) for column in zip(*sorted(rows.values()), strict=True)]
        async with (await self._connections()).acquire() as conn:
            inserted = {(r[0], r[1]) for r in await conn.fetch(_PG_INSERT, *columns)}
            rest = [key for key in rows if key not in inserted]
            existing = {(r[0], r[1]): tuple(r) for r in await conn.fetch(
                _PG_EXISTING, [k[0] for k in rest], [k[1] for k in rest])} if rest else {}
        return classify(rows, inserted, existing)

    async def get_row(self, answer_id: str, tenant: str | None) -> dict[str, Any] | None:
        """The answer's row (columns by name, `detail` decoded), None when there is none
        (or it is another tenant's)."""
        async with (await self._connections()).acquire() as conn:
            found = await (conn.fetchrow("SELECT * FROM answers WHERE answer_id = $1 "
                                         "ORDER BY tenant LIMIT 1", answer_id)
                           if tenant is None else
                           conn.fetchrow("SELECT * FROM answers WHERE answer_id = $1 AND "
                                         "tenant = $2", answer_id, tenant))
        if found is None:
            return None
        row = dict(found)
        if row["detail"] is not None:  # JSON arrives as its text
            row["detail"] = orjson.loads(row["detail"])
        return row

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None


def hot_path(url: URL) -> SqliteHotPath | PgHotPath:
    """The hot path of the store at `url` (SQLite or PostgreSQL)."""
    if url.get_backend_name() == "sqlite":
        return SqliteHotPath(url.database or "")
    return PgHotPath(url)
