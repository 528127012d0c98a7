"""Earlier results of an answer: when a recomputed result replaces a formatted one and the
store keeps versions (`CITEFLOW_STORE_VERSIONS`), the replaced result, its event and when
it was replaced, for `GET /v1/answers/{id}/versions`.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "answer_versions",
        sa.Column("answer_id", sa.String(200), primary_key=True),
        sa.Column("tenant", sa.String(200), primary_key=True),
        sa.Column("event_id", sa.String(200), primary_key=True),
        sa.Column("event_time_ms", sa.BigInteger, nullable=False),
        sa.Column("result", sa.LargeBinary, nullable=False),
        sa.Column("replaced_at_ms", sa.BigInteger, nullable=False),
        sa.Column("replaced_by", sa.String(200), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("answer_versions")
