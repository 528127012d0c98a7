"""Finding a stage by name (the pipeline's registry) or by import path (`module:attr`)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from services.runtime.stage import Stage


def load_stage(spec: str) -> Stage:
    """The stage named `spec` in `services.stages`, or the Stage (or zero-argument factory
    returning one) at import path `module:attr`."""
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        try:
            target = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise LookupError(f"cannot load stage {spec!r}: {exc}") from None
        stage = target() if callable(target) and not isinstance(target, Stage) else target
        if not isinstance(stage, Stage):
            raise LookupError(f"{spec!r} is not a Stage")
        return stage
    stages = pipeline_stages()
    if spec not in stages:
        raise LookupError(f"unknown stage {spec!r} (known: {', '.join(stages)})")
    return stages[spec]


def pipeline_stages() -> Mapping[str, Stage]:
    """The pipeline's stages in flow order (imported lazily: stage logic is heavy)."""
    from services.stages import STAGES

    return STAGES


def load_stages(specs: list[str]) -> list[Stage]:
    """Several stages by name or import path."""
    return [load_stage(spec) for spec in specs]

