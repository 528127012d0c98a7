"""Finding a stage by name (the pipeline's registry) or by import path (`module:attr`)."""

from __future__ import annotations

import importlib

from services.runtime.stage import Stage


def load_stage(spec: str) -> Stage:
    """The pipeline stage named `spec` (`services.stages`), or the Stage (or zero-argument
    factory returning one) at import path `module:attr`."""
    if ":" not in spec:
        from services.stages import stage

        try:
            return stage(spec)
        except KeyError as exc:
            raise LookupError(exc.args[0]) from None
    module_name, _, attr = spec.partition(":")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise LookupError(f"cannot load stage {spec!r}: {exc}") from None
    stage_obj = target() if callable(target) and not isinstance(target, Stage) else target
    if not isinstance(stage_obj, Stage):
        raise LookupError(f"{spec!r} is not a Stage")
    return stage_obj


def pipeline_stage_names() -> tuple[str, ...]:
    """The pipeline's stage names in flow order (without importing their logic)."""
    from services.stages import STAGE_NAMES

    return STAGE_NAMES
