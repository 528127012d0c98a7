"""Alembic environment of the results store: always run by `services.store.migrate` on a
connection it opened (inside its transaction and lock), never from an alembic.ini."""

from __future__ import annotations

from alembic import context

from services.store.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
