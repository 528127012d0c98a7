"""The one interface every model judge of the judging stage implements.

A judge takes a batch of `Item`s (a claim and the evidence passage it was checked against)
and returns one `Opinion` (or the reason there is none) per item, with what the call used.
It raises `JudgeUnavailable` when it cannot be reached after its retries (the stage then
keeps the lexical verdict and counts a failure against the circuit breaker).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from schemas.judged import JudgementStatus
from schemas.spans import Verdict

# What a model may answer: `unverifiable` is decided before a model is asked.
MODEL_VERDICTS: tuple[Verdict, ...] = ("supported", "partial", "unsupported")


class JudgeConfigError(ValueError):
    """The judge cannot be used as configured (unknown model, refused key, bad setting)."""


class JudgeUnavailable(Exception):
    """The judge could not be reached or kept failing after its retries (transient)."""


@dataclass(frozen=True, slots=True)
class Item:
    """One claim against the passage it is judged on (`key` names it in a batch)."""

    key: str
    claim: str
    evidence: str


@dataclass(frozen=True, slots=True)
class Opinion:
    """A model's verdict on one item, with its one-sentence rationale and the quotes from the
    evidence it relied on (not yet checked against the evidence)."""

    verdict: Verdict
    rationale: str
    quotes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NoOpinion:
    """Why an item got no usable opinion: `rejected` (unusable reply) or `refused`."""

    status: JudgementStatus
    detail: str


@dataclass(slots=True)
class Usage:
    """What one or more calls used."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(slots=True)
class Verdicts:
    """A judge's answer to one batch: per item key, an opinion or why there is none."""

    opinions: dict[str, Opinion | NoOpinion] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)


def no_opinions(items: Sequence[Item], status: JudgementStatus, detail: str, usage: Usage) -> Verdicts:
    """The same `NoOpinion` for every item of a batch (a reply unusable as a whole)."""
    return Verdicts({item.key: NoOpinion(status, detail) for item in items}, usage)


class ModelJudge(Protocol):
    """A model judge (OpenAI-compatible, Anthropic, a local NLI model)."""

    @property
    def name(self) -> str:
        """How verdicts record the judge, e.g. `openai:gpt-4o-mini`."""
        ...

    @property
    def quotes_evidence(self) -> bool:
        """Whether its opinions quote the evidence (a `supported`/`partial` opinion without
        a quote is then rejected)."""
        ...

    def check(self) -> None:
        """Raise JudgeConfigError when the judge cannot work as configured (at start-up)."""
        ...

    def judge(self, items: Sequence[Item]) -> Verdicts:
        """One opinion (or none, with the reason) per item; raises JudgeUnavailable."""
        ...
