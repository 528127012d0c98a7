"""Commands of the citeflow CLI (pipeline_cmds)."""

from __future__ import annotations

from services.cli import bench, main, schemas  # noqa: F401
