"""Claiming submissions: the one store write on the gateway's submit path (SPEC §9), so it
is written for the request rate rather than through the query builder.

A batch of claims inserts the answers not there yet as `submitted` (only the columns a
submission knows; the rest stay NULL) and reads back the ones that were, in one
transaction:
- SQLite: its own connection on its own thread, the whole batch one call there (BEGIN
  IMMEDIATE; SELECT the ids; INSERT the rest; COMMIT). The write lock is taken at BEGIN, so
  no other writer (another gateway worker, the sink) can insert between the SELECT and the
  INSERT, and SQLite runs with the GIL released: the event loop goes on serving.
- PostgreSQL: one INSERT ... SELECT FROM unnest(...) ON CONFLICT DO NOTHING RETURNING on
  the asyncpg connection (atomic on its own: concurrent gateways cannot both create an id),
  then one SELECT of the ids that were already there.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from services.store.answer_state import to_ms
from services.store.api import Claim, StoreUnavailable, Submission

# The columns a claim fills in, in this order (submitted_event_id stays NULL until the sink
# sees the record on `answers.submitted`: the mark that the broker holds it).
_COLUMNS = ("answer_id", "tenant", "status", "model", "answered_at_ms", "submitted_at_ms",
            "body_sha256", "event_id", "event_time_ms", "updated_at_ms")
# What is read of an answer already there: enough to tell same body / conflict / stored.
_EXISTING = "answer_id, tenant, status, body_sha256, submitted_event_id"
_SQLITE_ROW = f"({', '.join('?' * len(_COLUMNS))})"
# Rows per statement: 5,000 bound values, within SQLite's limit since 3.32 (32,766).
_SQLITE_CHUNK = 500
_PG_TYPES = ("text", "text", "text", "text", "bigint", "bigint", "text", "text", "bigint",
             "bigint")
_PG_INSERT = (f"INSERT INTO answers ({', '.join(_COLUMNS)}) SELECT * FROM unnest("
              + ", ".join(f"${n}::{t}[]" for n, t in enumerate(_PG_TYPES, 1))
              + ") ON CONFLICT DO NOTHING RETURNING answer_id")
_PG_EXISTING = f"SELECT {_EXISTING} FROM answers WHERE answer_id = ANY($1::text[])"
_SQLITE_BUSY_S = 30.0  # as the engine's busy_timeout: the sink and gateways share the file


def claim_rows(submissions: Sequence[Submission], now_ms: int) -> dict[str, tuple[Any, ...]]:
    """One row (in `_COLUMNS` order) per answer id; the first submission of an id wins."""
    rows: dict[str, tuple[Any, ...]] = {}
    for s in submissions:
        if s.answer_id not in rows:
            at = to_ms(s.submitted_at)
            rows[s.answer_id] = (s.answer_id, s.tenant, "submitted", s.model, at, at,
                                 s.body_sha256, s.event_id, at, now_ms)
    return rows


def classify(rows: dict[str, tuple[Any, ...]], inserted: set[str],
             existing: Mapping[str, Sequence[Any]]) -> dict[str, Claim]:
    """Each id's claim: `created` when this batch inserted it; else `conflict` when the row
    there has another body or tenant, `same` otherwise (`stored` when the broker is known to
    hold it: the sink saw the submission, or a later status exists)."""
    claims: dict[str, Claim] = {}
    for answer_id, row in rows.items():
        if answer_id in inserted:
            claims[answer_id] = Claim("created", False)
            continue
        there = existing.get(answer_id)
        if there is None:
            # Released by another request between the INSERT and the SELECT (PostgreSQL):
            # not known to be stored, so the caller produces (and the sink records it).
            claims[answer_id] = Claim("same", False)
            continue
        _, tenant, status, body_sha256, submitted_event_id = there
        wanted_sha = row[6]
        other_body = body_sha256 is not None and wanted_sha is not None \
            and body_sha256 != wanted_sha
        stored = status != "submitted" or submitted_event_id is not None
        claims[answer_id] = Claim(
            "conflict" if other_body or tenant != row[1] else "same", stored)
    return claims


class SqliteClaims:
    """Claims on an SQLite file through one connection owned by one thread."""

    def __init__(self, path: str) -> None:
        if not path or path == ":memory:":
            raise ValueError("the SQLite results store must be a file, not an in-memory "
                             "database (the gateway, the sink and the readers share it)")
        self._path = path
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="citeflow-claims")
        self._local = threading.local()

    async def claim(self, submissions: Sequence[Submission], now_ms: int) -> dict[str, Claim]:
        rows = claim_rows(submissions, now_ms)
        try:
            inserted, existing = await asyncio.get_running_loop().run_in_executor(
                self._pool, self._claim, list(rows.values()))
        except sqlite3.Error as error:
            raise StoreUnavailable(f"store unavailable: {type(error).__name__}: {error}") \
                from error
        return classify(rows, inserted, existing)

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._path, timeout=_SQLITE_BUSY_S, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def _claim(self, rows: list[tuple[Any, ...]]
               ) -> tuple[set[str], dict[str, Sequence[Any]]]:
        # Four statements a batch, each one step of SQLite (one multi-row INSERT, not an
        # executemany): this thread gives up and takes back the GIL around every step, and
        # each take-back may wait for the busy event loop's switch interval.
        conn = self._connection()
        existing: dict[str, Sequence[Any]] = {}
        conn.execute("BEGIN IMMEDIATE")
        try:
            for start in range(0, len(rows), _SQLITE_CHUNK):
                chunk = rows[start:start + _SQLITE_CHUNK]
                ids = [row[0] for row in chunk]
                found = {r[0]: r for r in conn.execute(
                    f"SELECT {_EXISTING} FROM answers WHERE answer_id IN "
                    f"({', '.join('?' * len(ids))})", ids)}
                new = [value for row in chunk if row[0] not in found for value in row]
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
        return {row[0] for row in rows if row[0] not in existing}, existing

    def close(self) -> None:
        def close_connection() -> None:
            conn = getattr(self._local, "conn", None)
            if conn is not None:
                conn.close()
                self._local.conn = None

        self._pool.submit(close_connection).result()
        self._pool.shutdown()


async def claim_postgresql(engine: AsyncEngine, submissions: Sequence[Submission],
                           now_ms: int) -> dict[str, Claim]:
    """Claims on PostgreSQL through the engine's asyncpg connection (two statements)."""
    rows = claim_rows(submissions, now_ms)
    columns = [list(column) for column in zip(*rows.values(), strict=True)]
    async with engine.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        assert driver is not None
        inserted = {r[0] for r in await driver.fetch(_PG_INSERT, *columns)}
        rest = [answer_id for answer_id in rows if answer_id not in inserted]
        existing = {r[0]: tuple(r) for r in await driver.fetch(_PG_EXISTING, rest)} \
            if rest else {}
    return classify(rows, inserted, existing)
