"""Fill the `language` column of answers stored before it existed, from their stored result
JSON (`answer.formatted`'s `language`). A result that predates the field keeps NULL until a
recomputing replay (`citeflow replay answers.submitted --recompute`) stores a new one.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28
"""

from __future__ import annotations

from services.store.migrations.backfill import backfill
from services.store.summary import detected_language

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # the rows still without a language
    backfill("language", detected_language, lambda answers: answers.c.language.is_(None))


def downgrade() -> None:
    """Nothing to undo: the values are what 0004's column would have held."""
