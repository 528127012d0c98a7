"""Fill the `language` column of answers stored before it existed, from their stored result
JSON (`answer.formatted`'s `language`). A result that predates the field keeps NULL until a
recomputing replay (`citeflow replay answers.submitted --recompute`) stores a new one.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28
"""

from __future__ import annotations

import orjson
import sqlalchemy as sa
from alembic import op

from services.store.summary import detected_language

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_BATCH = 500


def upgrade() -> None:
    conn = op.get_bind()
    answers = sa.table("answers", sa.column("answer_id"), sa.column("tenant"),
                       sa.column("result", sa.LargeBinary), sa.column("language"))
    after: tuple[str, str] = ("", "")
    while True:
        # Keyset pages over the rows still without a language, a batch at a time.
        rows = conn.execute(
            sa.select(answers.c.answer_id, answers.c.tenant, answers.c.result)
            .where(answers.c.language.is_(None), answers.c.result.is_not(None),
                   sa.tuple_(answers.c.answer_id, answers.c.tenant) > after)
            .order_by(answers.c.answer_id, answers.c.tenant).limit(_BATCH)).all()
        if not rows:
            return
        for answer_id, tenant, result in rows:
            try:
                language = detected_language(orjson.loads(result))
            except orjson.JSONDecodeError:
                continue  # not a result this can read: left as it is
            if language is not None:
                conn.execute(sa.update(answers).where(
                    answers.c.answer_id == answer_id, answers.c.tenant == tenant,
                ).values(language=language))
        after = (rows[-1][0], rows[-1][1])


def downgrade() -> None:
    """Nothing to undo: the values are what 0004's column would have held."""
