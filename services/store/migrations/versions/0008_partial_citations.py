"""Partial verdicts counted apart from unverifiable ones (`GET /v1/stats`'s verdict mix): a
column filled from `answer.formatted`'s quality block (or its citations' verdicts) for results
stored from now on, and for older rows from their stored result JSON. A row whose result
cannot be read keeps NULL: its citations are neither partial nor unverifiable in the mix.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29
"""

from __future__ import annotations

import orjson
import sqlalchemy as sa
from alembic import op

from services.store.summary import summarize

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_BATCH = 500


def upgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.add_column(sa.Column("partial_citations", sa.Integer))
    conn = op.get_bind()
    answers = sa.table("answers", sa.column("answer_id"), sa.column("tenant"),
                       sa.column("result", sa.LargeBinary), sa.column("supported_citations"),
                       sa.column("partial_citations"))
    after: tuple[str, str] = ("", "")
    while True:
        # Keyset pages over the judged rows, a batch at a time.
        rows = conn.execute(
            sa.select(answers.c.answer_id, answers.c.tenant, answers.c.result)
            .where(answers.c.supported_citations.is_not(None), answers.c.result.is_not(None),
                   sa.tuple_(answers.c.answer_id, answers.c.tenant) > after)
            .order_by(answers.c.answer_id, answers.c.tenant).limit(_BATCH)).all()
        if not rows:
            return
        for answer_id, tenant, result in rows:
            try:
                data = orjson.loads(result)
            except orjson.JSONDecodeError:
                continue  # not a result this can read: left as it is
            partial = summarize(data).partial_citations if isinstance(data, dict) else None
            if partial is not None:
                conn.execute(sa.update(answers).where(
                    answers.c.answer_id == answer_id, answers.c.tenant == tenant,
                ).values(partial_citations=partial))
        after = (rows[-1][0], rows[-1][1])


def downgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.drop_column("partial_citations")
