"""The body of an accepted answer, kept until its outcome arrives, so that an answer the
broker lost (the embedded broker keeps its log in memory) is re-driven from the store.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.add_column(sa.Column("submitted_body", sa.LargeBinary))


def downgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.drop_column("submitted_body")
