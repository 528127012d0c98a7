"""Commands of the citeflow CLI (documents_cmds)."""

from __future__ import annotations

from services.cli import bench, main, schemas  # noqa: F401
