"""Filling a column added to `answers` for the rows stored before it, from their stored
result JSON, a keyset page of rows at a time (the migrations that add summary columns)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

_BATCH = 500


def backfill(column: str, value_of: Callable[[dict[str, Any]], Any],
             where: Callable[[Any], Any], reads: tuple[str, ...] = ()) -> None:
    """Set `column` of each stored answer with a result that `where` (given the table, with
    `column` and the `reads` columns) selects to `value_of` its result's data; a result
    that is not a JSON object, or whose value is None, leaves the row as it is."""
    conn = op.get_bind()
    answers = sa.table("answers", sa.column("answer_id"), sa.column("tenant"),
                       sa.column("result", sa.LargeBinary), sa.column(column),
                       *map(sa.column, reads))
    after: tuple[str, str] = ("", "")
    while True:
        rows = conn.execute(
            sa.select(answers.c.answer_id, answers.c.tenant, answers.c.result)
            .where(answers.c.result.is_not(None), where(answers),
                   sa.tuple_(answers.c.answer_id, answers.c.tenant) > after)
            .order_by(answers.c.answer_id, answers.c.tenant).limit(_BATCH)).all()
        if not rows:
            return
        for answer_id, tenant, result in rows:
            try:
                data = orjson.loads(result)
            except orjson.JSONDecodeError:
                continue  # not a result this can read: left as it is
            value = value_of(data) if isinstance(data, dict) else None
            if value is not None:
                conn.execute(sa.update(answers).where(
                    answers.c.answer_id == answer_id, answers.c.tenant == tenant,
                ).values({column: value}))
        after = (rows[-1][0], rows[-1][1])
