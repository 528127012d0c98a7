"""Answers scoped by tenant: the primary key of `answers` is (answer_id, tenant).

An answer_id was one namespace across tenants: a tenant submitting another tenant's
answer_id got 409 answer_id_conflict (so it learnt the id existed, also per line of
`:batch`) and could take an id first, blocking the other tenant for good. Rows
are now keyed by (answer_id, tenant), so each tenant has its own answer ids. As for
documents (0002), the answer_id stays the one the client chose: it is the Kafka key, the
subject of every event, in `answer.formatted` results and in `Location`s, and the tenant
already travels with every answer (metadata.tenant, stamped by the gateway), so no event
changes and no upcaster is needed. The table is rebuilt (SQLite cannot change a primary
key in place); existing rows keep their tenant.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

ID = sa.String(200)
COLUMNS = (
    "answer_id, tenant, status, model, answered_at_ms, submitted_at_ms, submitted_event_id, "
    "body_sha256, event_id, event_time_ms, updated_at_ms, result, reason, detail, latency_ms, "
    "pos_topic, pos_partition, pos_offset, citations, invalid_citations, sentences, "
    "uncited_sentences, coverage, downgraded_quotes, sources_supplied, sources_cited, "
    "problems, citation_recall, citation_precision, supported_citations, "
    "unsupported_citations")
INDEXES = (("ix_answers_tenant_answered", ["tenant", "answered_at_ms", "answer_id"]),
           ("ix_answers_answered", ["answered_at_ms", "answer_id"]),
           ("ix_answers_updated", ["updated_at_ms"]))


def _answers(name: str, key: tuple[str, ...]) -> None:
    op.create_table(
        name,
        sa.Column("answer_id", ID, nullable=False),
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
        sa.PrimaryKeyConstraint(*key, name=f"pk_{name}"),
    )


def _swap(name: str) -> None:
    """Replace `answers` by the filled table `name`, with the indexes `answers` had."""
    for index, _ in INDEXES:
        op.drop_index(index, "answers")
    op.drop_table("answers")
    op.rename_table(name, "answers")
    for index, columns in INDEXES:
        op.create_index(index, "answers", columns)


def upgrade() -> None:
    _answers("answers_by_tenant", ("answer_id", "tenant"))
    op.execute(f"INSERT INTO answers_by_tenant ({COLUMNS}) SELECT {COLUMNS} FROM answers")
    _swap("answers_by_tenant")


def downgrade() -> None:
    # One row per answer_id again: of an answer_id several tenants use, the first answered
    # stays (then the smallest tenant).
    _answers("answers_global", ("answer_id",))
    op.execute(
        f"INSERT INTO answers_global ({COLUMNS}) SELECT {COLUMNS} FROM answers a "
        "WHERE NOT EXISTS (SELECT 1 FROM answers b WHERE b.answer_id = a.answer_id AND "
        "(b.answered_at_ms < a.answered_at_ms OR (b.answered_at_ms = a.answered_at_ms "
        "AND b.tenant < a.tenant)))")
    _swap("answers_global")
