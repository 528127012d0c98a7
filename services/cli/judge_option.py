"""The `--judge` option the evaluations share: the lexical or NLI judge they run inline, or a
model judge (`openai:<model>`, `anthropic:<model>`, configured like the judging stage by
CITEFLOW_JUDGING_*) measured beside the lexical one on the same claims."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from services.judging.refine import Refiner
    from services.verification.judges import Judge

MODEL_JUDGES = ("openai:", "anthropic:")

judge_option: Callable[[Any], Any] = click.option(
    "--judge", "setting", default=None,
    help="Judge to evaluate: 'lexical', 'nli:/path/to/model' (default: $CITEFLOW_JUDGE), or a "
         "model judge, 'openai:<model>' or 'anthropic:<model>' (base URL, key, prices from "
         "CITEFLOW_JUDGING_*), shown beside the lexical judge on the same claims with its "
         "cost and time.")


def resolve_judge(setting: str | None) -> tuple[Judge, Refiner | None]:
    """The inline judge to run, and the model judge to measure beside it (or None)."""
    from services.judging.judge import JudgeConfigError
    from services.judging.settings import JUDGE, refiner_from_env
    from services.verification.config import configured_judge, judge_from_setting

    if setting is None or not setting.startswith(MODEL_JUDGES):
        return (judge_from_setting(setting) if setting is not None else configured_judge()), None
    try:
        refiner = refiner_from_env({**os.environ, JUDGE: setting,
                                    "CITEFLOW_JUDGING_SCOPE": "all"})
    except JudgeConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="'--judge'") from None
    return judge_from_setting("lexical"), refiner
