"""Documents scoped by tenant: the primary key of `documents` is (doc_id, tenant).

A doc_id was one namespace across tenants: a tenant uploading a doc_id another tenant had
used got 409 (so it learnt the id existed) and could take an id first. Rows
are now keyed by (tenant, doc_id), so each tenant has its own doc_ids; the representation
keeps the doc_id the client chose (not a prefixed or hashed one), so the ids in
`documents.ingested` chunks, in answers' citations and in reader URLs are unchanged, and no
event needs a new version. The table is rebuilt (SQLite cannot change a primary key in
place); existing rows keep their tenant.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ID = sa.String(200)
COLUMNS = ("doc_id, tenant, status, format, path, sha256, submitted_at_ms, updated_at_ms, "
           "sections, chunks, reason, detail")


def _documents(name: str, key: tuple[str, ...]) -> None:
    op.create_table(
        name,
        sa.Column("doc_id", ID, nullable=False),
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
        sa.PrimaryKeyConstraint(*key, name=f"pk_{name}"),
    )


def upgrade() -> None:
    _documents("documents_by_tenant", ("doc_id", "tenant"))
    op.execute(f"INSERT INTO documents_by_tenant ({COLUMNS}) SELECT {COLUMNS} FROM documents")
    op.drop_table("documents")
    op.rename_table("documents_by_tenant", "documents")


def downgrade() -> None:
    # One row per doc_id again: of a doc_id several tenants use, the first submitted stays.
    _documents("documents_global", ("doc_id",))
    op.execute(
        f"INSERT INTO documents_global ({COLUMNS}) SELECT {COLUMNS} FROM documents d "
        "WHERE NOT EXISTS (SELECT 1 FROM documents e WHERE e.doc_id = d.doc_id AND "
        "(e.submitted_at_ms < d.submitted_at_ms OR (e.submitted_at_ms = d.submitted_at_ms "
        "AND e.tenant < d.tenant)))")
    op.drop_table("documents")
    op.rename_table("documents_global", "documents")
