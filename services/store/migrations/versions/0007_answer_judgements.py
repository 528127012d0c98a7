"""A model judge's second opinion beside the lexical one: the latest `answer.judged` of an
answer (its JSON), the judge's name, the number of citations where it disagrees, its cost
and time, for
`GET /v1/answers/{id}`, `GET /v1/answers?disagreement=` and `GET /v1/stats?group_by=judge`.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.add_column(sa.Column("judged", sa.LargeBinary))
        batch.add_column(sa.Column("judge", sa.String(200)))
        batch.add_column(sa.Column("disagreements", sa.Integer))
        batch.add_column(sa.Column("judged_event_id", sa.String(200)))
        batch.add_column(sa.Column("judged_time_ms", sa.BigInteger))
        batch.add_column(sa.Column("judge_usd", sa.Float))
        batch.add_column(sa.Column("judge_latency_ms", sa.Float))


def downgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        for name in ("judge_latency_ms", "judge_usd", "judged_time_ms", "judged_event_id", "disagreements", "judge", "judged"):
            batch.drop_column(name)
