"""The first schema: answers, API keys, idempotency keys, documents.

Revision ID: 0001
Revises:
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.String(200)


def upgrade() -> None:
    op.create_table(
        "answers",
        sa.Column("answer_id", ID, primary_key=True),
        sa.Column("tenant", ID, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("model", ID),
        sa.Column("answered_at_ms", sa.BigInteger, nullable=False),
        sa.Column("submitted_at_ms", sa.BigInteger),
        sa.Column("submitted_event_id", ID),
        sa.Column("body_sha256", sa.String(64)),
        sa.Column("event_id", ID),
        sa.Column("event_time_ms", sa.BigInteger),
        sa.Column("updated_at_ms", sa.BigInteger, nullable=False),
        sa.Column("result", sa.LargeBinary),
        sa.Column("reason", ID),
        sa.Column("detail", sa.JSON),
        sa.Column("latency_ms", sa.Float),
        sa.Column("pos_topic", ID),
        sa.Column("pos_partition", sa.Integer),
        sa.Column("pos_offset", sa.BigInteger),
        sa.Column("citations", sa.Integer),
        sa.Column("invalid_citations", sa.Integer),
        sa.Column("sentences", sa.Integer),
        sa.Column("uncited_sentences", sa.Integer),
        sa.Column("coverage", sa.Float),
        sa.Column("downgraded_quotes", sa.Integer),
        sa.Column("sources_supplied", sa.Integer),
        sa.Column("sources_cited", sa.Integer),
        sa.Column("problems", sa.Integer),
        sa.Column("citation_recall", sa.Float),
        sa.Column("citation_precision", sa.Float),
        sa.Column("supported_citations", sa.Integer),
        sa.Column("unsupported_citations", sa.Integer),
    )
    op.create_index("ix_answers_tenant_answered", "answers",
                    ["tenant", "answered_at_ms", "answer_id"])
    op.create_index("ix_answers_answered", "answers", ["answered_at_ms", "answer_id"])
    op.create_index("ix_answers_updated", "answers", ["updated_at_ms"])
    op.create_table(
        "api_keys",
        sa.Column("key_id", sa.String(32), primary_key=True),
        sa.Column("secret_sha256", sa.String(64), nullable=False),
        sa.Column("tenant", ID, nullable=False),
        sa.Column("scopes", sa.String(200), nullable=False),
        sa.Column("name", ID),
        sa.Column("rate_per_s", sa.Float),
        sa.Column("created_at_ms", sa.BigInteger, nullable=False),
        sa.Column("revoked_at_ms", sa.BigInteger),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("tenant", ID, primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("headers", sa.JSON, nullable=False),
        sa.Column("body", sa.LargeBinary, nullable=False),
        sa.Column("created_at_ms", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "documents",
        sa.Column("doc_id", ID, primary_key=True),
        sa.Column("tenant", ID, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("format", sa.String(16)),
        sa.Column("path", sa.String(2000), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("submitted_at_ms", sa.BigInteger, nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger, nullable=False),
        sa.Column("sections", sa.Integer),
        sa.Column("chunks", sa.Integer),
        sa.Column("reason", ID),
        sa.Column("detail", sa.JSON),
    )


def downgrade() -> None:
    op.drop_table("documents")
    op.drop_table("idempotency_keys")
    op.drop_table("api_keys")
    op.drop_index("ix_answers_updated", "answers")
    op.drop_index("ix_answers_answered", "answers")
    op.drop_index("ix_answers_tenant_answered", "answers")
    op.drop_table("answers")
