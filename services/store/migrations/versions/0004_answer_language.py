"""The answer's detected language as a column, for `GET /v1/answers?language=` and
`GET /v1/stats?group_by=language`: filled from `answer.formatted`'s `language` for results
stored from now on (older rows are filled by 0005).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.add_column(sa.Column("language", sa.String(16)))


def downgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.drop_column("language")
