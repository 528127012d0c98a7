"""Partial verdicts counted apart from unverifiable ones (`GET /v1/stats`'s verdict mix): a
column filled from `answer.formatted`'s quality block (or its citations' verdicts) for results
stored from now on, and for older rows from their stored result JSON. A row whose result
cannot be read keeps NULL: its citations are neither partial nor unverifiable in the mix.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from services.store.migrations.backfill import backfill
from services.store.summary import summarize

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.add_column(sa.Column("partial_citations", sa.Integer))
    # the judged rows
    backfill("partial_citations", lambda data: summarize(data).partial_citations,
             lambda answers: answers.c.supported_citations.is_not(None),
             reads=("supported_citations",))


def downgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.drop_column("partial_citations")
