"""The stage registry: every stage by name, in pipeline order."""

from __future__ import annotations

from importlib import import_module

from services.runtime.stage import Stage

STAGE_NAMES: tuple[str, ...] = ("ingest", "scoring", "citations", "spans", "formatting")
# Sinks: consumers of the pipeline's outcomes that write a database (`citeflow run store`).
SINK_NAMES: tuple[str, ...] = ("store",)
# Optional consumers after the pipeline: `judging` runs when CITEFLOW_JUDGING names a model
# judge (services.judging.settings); without one there is nothing for it to do.
JUDGING_NAMES: tuple[str, ...] = ("judging",)


def stage(name: str) -> Stage:
    """The stage called `name` (imports only that stage's logic). A stage whose
    configuration is unusable (e.g. CITEFLOW_JUDGING naming an unknown model) raises
    LookupError with the reason."""
    known = STAGE_NAMES + SINK_NAMES + JUDGING_NAMES
    if name not in known:
        raise KeyError(f"unknown stage {name!r}; stages: {', '.join(known)}")
    if name in JUDGING_NAMES:
        from services.judging.judge import JudgeConfigError

        try:
            return import_module(f"services.{name}.stage").STAGE
        except JudgeConfigError as exc:
            raise LookupError(f"stage {name!r}: {exc}") from None
    return import_module(f"services.{name}.stage").STAGE


def optional_stage_names() -> tuple[str, ...]:
    """The optional consumers this configuration runs (`judging` when a judge is set)."""
    from services.judging.settings import configured

    return JUDGING_NAMES if configured() else ()


def all_stages() -> dict[str, Stage]:
    """Every stage, in pipeline order."""
    return {name: stage(name) for name in STAGE_NAMES}
