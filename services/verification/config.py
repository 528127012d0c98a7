"""The judge of a deployment, chosen by configuration: `CITEFLOW_JUDGE`.

- unset or `lexical`: the built-in lexical judge;
- `nli:/path/to/model`: an NLI / fact-checking model from a local directory the operator
  supplies (needs the `citeflow[nli]` extra; nothing is ever downloaded).

Anything else is a configuration error, raised when the judge is first asked for (at a
stage's first answer), never silently replaced by another judge.
"""

from __future__ import annotations

import os
from functools import cache

from services.verification.judges import LEXICAL, Judge

JUDGE_VARIABLE = "CITEFLOW_JUDGE"


class JudgeConfigError(ValueError):
    """`CITEFLOW_JUDGE` names no judge this installation can run."""


def judge_from_setting(setting: str) -> Judge:
    """The judge a `CITEFLOW_JUDGE` value names (see the module docstring)."""
    setting = setting.strip()
    if setting in ("", "lexical"):
        return LEXICAL
    kind, _, path = setting.partition(":")
    if kind == "nli" and path:
        from services.verification.nli.judge import NliJudge

        return NliJudge.from_directory(path)
    raise JudgeConfigError(
        f"{JUDGE_VARIABLE}={setting!r}: expected 'lexical' or 'nli:/path/to/model'"
    )


@cache
def configured_judge() -> Judge:
    """The judge `CITEFLOW_JUDGE` names in this process (loaded once)."""
    return judge_from_setting(os.environ.get(JUDGE_VARIABLE, ""))
