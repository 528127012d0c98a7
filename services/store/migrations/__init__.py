"""Alembic migrations of the results store (versions/ holds one script per schema version)."""
