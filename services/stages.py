"""The stage registry: every stage by name, in pipeline order."""

from __future__ import annotations

from importlib import import_module

from services.runtime.stage import Stage

STAGE_NAMES: tuple[str, ...] = ("ingest", "scoring", "citations", "spans", "formatting")
# Sinks: consumers of the pipeline's outcomes that write a database (`citeflow run store`).
SINK_NAMES: tuple[str, ...] = ("store",)


def stage(name: str) -> Stage:
    """The stage called `name` (imports only that stage's logic)."""
    if name not in STAGE_NAMES + SINK_NAMES:
        raise KeyError(f"unknown stage {name!r}; stages: {', '.join(STAGE_NAMES + SINK_NAMES)}")
    return import_module(f"services.{name}.stage").STAGE


def all_stages() -> dict[str, Stage]:
    """Every stage, in pipeline order."""
    return {name: stage(name) for name in STAGE_NAMES}
