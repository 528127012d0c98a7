"""The judging stage's configuration, from environment variables.

`CITEFLOW_JUDGING` names the judge: `openai:<model>` (any OpenAI-compatible server, at
`CITEFLOW_JUDGING_BASE_URL`), `anthropic:<model>`, or `nli:/path/to/model` (a local ONNX
NLI model directory). Unset, there is no judging stage and nothing changes. Every variable
is read once, at start-up; a bad value or an unknown model stops the stage there with one
clear line (never a crash loop over answers).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import httpx

from services.judging.anthropic_judge import AnthropicJudge
from services.judging.breaker import CircuitBreaker
from services.judging.budget import BudgetLimits, Budgets
from services.judging.cache import OpinionCache
from services.judging.judge import JudgeConfigError, ModelJudge
from services.judging.openai_judge import OpenAICompatibleJudge
from services.judging.refine import Prices, Refiner
from services.judging.transport import Transport
from services.runtime.retry import RetryPolicy

JUDGE = "CITEFLOW_JUDGING"
# Every variable the stage reads, with its default (documented in docs/configuration.md).
DEFAULTS: dict[str, str] = {
    JUDGE: "",
    "CITEFLOW_JUDGING_BASE_URL": "",
    "CITEFLOW_JUDGING_API_KEY": "",
    "CITEFLOW_JUDGING_SCOPE": "doubtful",
    "CITEFLOW_JUDGING_BATCH": "8",
    "CITEFLOW_JUDGING_CONCURRENCY": "4",
    "CITEFLOW_JUDGING_CONTEXT_CHARS": "6000",
    "CITEFLOW_JUDGING_TIMEOUT_S": "30",
    "CITEFLOW_JUDGING_ATTEMPTS": "4",
    "CITEFLOW_JUDGING_MAX_RETRY_AFTER_S": "60",
    "CITEFLOW_JUDGING_BREAKER": "5/30",
    "CITEFLOW_JUDGING_BUDGET": "",
    "CITEFLOW_JUDGING_PRICES": "",
    "CITEFLOW_JUDGING_CACHE_SIZE": "10000",
}


def configured(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a model judge is configured (the judging stage has work)."""
    return bool((os.environ if environ is None else environ).get(JUDGE, "").strip())


def judge_from_setting(setting: str, env: Mapping[str, str]) -> ModelJudge:
    """The judge `CITEFLOW_JUDGING` names, its transport built from the other variables."""
    kind, _, target = setting.strip().partition(":")
    if kind == "nli" and target:
        from services.judging.nli_judge import NliModelJudge
        from services.verification.nli.judge import NliJudge, NliJudgeError

        try:
            return NliModelJudge(NliJudge.from_directory(target))
        except NliJudgeError as exc:
            raise JudgeConfigError(str(exc)) from None
    if kind not in ("openai", "anthropic") or not target:
        raise JudgeConfigError(f"{JUDGE}={setting!r}: expected 'openai:<model>', "
                               "'anthropic:<model>' or 'nli:/path/to/model'")
    timeout = _number(env, "CITEFLOW_JUDGING_TIMEOUT_S")
    transport = Transport(
        httpx.Client(timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0))),
        RetryPolicy(max_attempts=int(_number(env, "CITEFLOW_JUDGING_ATTEMPTS")), base_ms=500,
                    max_ms=8000),
        max_retry_after_s=_number(env, "CITEFLOW_JUDGING_MAX_RETRY_AFTER_S"),
    )
    base = _get(env, "CITEFLOW_JUDGING_BASE_URL")
    key = _get(env, "CITEFLOW_JUDGING_API_KEY")
    chat = OpenAICompatibleJudge if kind == "openai" else AnthropicJudge
    return chat(transport, target, base or None, api_key=key)


def refiner_from_env(environ: Mapping[str, str] | None = None) -> Refiner:
    """The judging stage's refiner; raises JudgeConfigError (one line) on a bad setting."""
    env = os.environ if environ is None else environ
    setting = _get(env, JUDGE)
    if not setting:
        raise JudgeConfigError(f"{JUDGE} is not set: the judging stage has no judge")
    judge = judge_from_setting(setting, env)
    judge.check()
    scope = _get(env, "CITEFLOW_JUDGING_SCOPE")
    if scope not in ("all", "doubtful"):
        raise JudgeConfigError(f"CITEFLOW_JUDGING_SCOPE={scope!r}: expected 'doubtful' or 'all'")
    threshold, _, cooldown = _get(env, "CITEFLOW_JUDGING_BREAKER").partition("/")
    try:
        breaker = CircuitBreaker(int(threshold), float(cooldown or 30))
        budgets = Budgets(BudgetLimits.parse(_get(env, "CITEFLOW_JUDGING_BUDGET")))
        prices = _prices(_get(env, "CITEFLOW_JUDGING_PRICES"))
    except ValueError as exc:
        raise JudgeConfigError(str(exc)) from None
    return Refiner(
        judge, scope=scope,  # type: ignore[arg-type]
        batch_size=max(1, int(_number(env, "CITEFLOW_JUDGING_BATCH"))),
        concurrency=max(1, int(_number(env, "CITEFLOW_JUDGING_CONCURRENCY"))),
        context_chars=max(200, int(_number(env, "CITEFLOW_JUDGING_CONTEXT_CHARS"))),
        breaker=breaker, budgets=budgets,
        cache=OpinionCache(int(_number(env, "CITEFLOW_JUDGING_CACHE_SIZE"))), prices=prices)


def _get(env: Mapping[str, str], name: str) -> str:
    return (env.get(name) or DEFAULTS[name]).strip()


def _number(env: Mapping[str, str], name: str) -> float:
    raw = _get(env, name)
    try:
        return float(raw)
    except ValueError:
        raise JudgeConfigError(f"{name}={raw!r} is not a number") from None


def _prices(text: str) -> Prices | None:
    """`0.15,0.60`: USD per million input and output tokens."""
    if not text:
        return None
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(f"CITEFLOW_JUDGING_PRICES={text!r}: expected 'input,output' USD per"
                         " million tokens, e.g. '0.15,0.60'")
    return Prices(float(parts[0]), float(parts[1]))
