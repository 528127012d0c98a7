"""Earlier versions of an answer's result: when a recomputed result (a `--recompute` replay:
another event id, a later event time) replaces a formatted one, the store keeps the one it
replaced, up to `CITEFLOW_STORE_VERSIONS` per answer (default 0: only the current result is
kept; earlier ones stay on `answers.formatted` for its retention).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from services.store.answer_state import Row
from services.store.tables import answer_versions

VERSIONS_ENV = "CITEFLOW_STORE_VERSIONS"


def versions_kept(environ: Mapping[str, str] | None = None) -> int:
    """How many earlier results the store keeps per answer (`CITEFLOW_STORE_VERSIONS`)."""
    raw = ((os.environ if environ is None else environ).get(VERSIONS_ENV) or "0").strip()
    if not raw.isdigit():
        raise ValueError(f"{VERSIONS_ENV}={raw!r}: expected how many earlier results to keep "
                         "per answer (0 keeps none)")
    return int(raw)


def replaced_version(before: Row, after: Row, now_ms: int) -> Row | None:
    """The version row of the result `before` held when `after` replaced it with another
    formatted result; None when no formatted result was replaced."""
    if (before["status"] != "formatted" or before["result"] is None
            or after["status"] != "formatted" or after["event_id"] == before["event_id"]):
        return None
    return {"answer_id": before["answer_id"], "tenant": before["tenant"],
            "event_id": before["event_id"], "event_time_ms": before["event_time_ms"],
            "result": before["result"], "replaced_at_ms": now_ms,
            "replaced_by": after["event_id"]}


async def keep(conn: AsyncConnection, versions: Sequence[Row], kept: int) -> None:
    """Store `versions` (a version already stored stays as it is), then drop each of their
    answers' versions beyond the `kept` newest (by the replaced result's event time)."""
    if not versions or kept <= 0:
        return
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    await conn.execute(insert(answer_versions).on_conflict_do_nothing(), list(versions))
    v = answer_versions.c
    keys = sorted({(row["answer_id"], row["tenant"]) for row in versions})
    ranked = sa.select(
        v.answer_id, v.tenant, v.event_id,
        sa.func.row_number().over(partition_by=(v.answer_id, v.tenant),
                                  order_by=(v.event_time_ms.desc(), v.event_id.desc()))
        .label("newest"),
    ).where(sa.tuple_(v.answer_id, v.tenant).in_(keys)).subquery()
    beyond = sa.select(ranked.c.answer_id, ranked.c.tenant, ranked.c.event_id).where(
        ranked.c.newest > kept)
    await conn.execute(sa.delete(answer_versions).where(
        sa.tuple_(v.answer_id, v.tenant, v.event_id).in_(beyond)))


async def read(conn: AsyncConnection, answer_id: str, tenant: str) -> list[Row]:
    """The answer's kept versions, the newest replaced first."""
    v = answer_versions.c
    stmt = (sa.select(answer_versions).where(v.answer_id == answer_id, v.tenant == tenant)
            .order_by(v.event_time_ms.desc(), v.event_id.desc()))
    return [dict(row) for row in (await conn.execute(stmt)).mappings()]
