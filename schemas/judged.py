"""`answer.judged` v1: a model judge's second opinion on an answer's citations.

The judging stage reads `answer.formatted` and publishes one `answer.judged` per answer it
was asked to refine. The lexical verdict was published before (on `answers.formatted`) and
stays; this event adds, per citation the stage picked, the model's verdict, its rationale,
the evidence it quoted (each quote found verbatim in the passage the model was shown), and
what the opinion cost. A citation whose model opinion could not be used keeps its lexical
verdict, with `status` saying why.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schemas.base import Model
from schemas.spans import Verdict

# judged: the model's verdict is the current one. Otherwise the lexical verdict stays:
# rejected: the reply was unusable (not JSON, a verdict outside the enum, evidence not in the
# passage, too long); refused: the model declined; unavailable: the judge could not be reached
# (after retries, or the circuit breaker is open); over_budget: the tenant's budget for the day
# is spent.
JudgementStatus = Literal["judged", "rejected", "refused", "unavailable", "over_budget"]
BreakerState = Literal["closed", "open", "half_open"]


class EvidenceQuote(Model):
    """A quote the model relied on, found verbatim in the passage (offsets in code points
    into the link's `passage`, or into the evidence span's `quote`)."""

    text: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class CitationJudgement(Model):
    """One citation's second opinion.

    `verdict` and `judge` are the current verdict and who gave it: the model's when
    `status` is `judged`, else the lexical verdict (`lexical_verdict`, `lexical_judge`).
    `model_verdict` is what the model answered, even when it was not used (`rejected`:
    e.g. its evidence was not in the passage). `detail` says why an opinion was not used.
    """

    # The citation's position in `answer.formatted`'s `citations` (its `id` is the source
    # number it cites, shared by every citation of that source).
    citation_index: int
    citation_id: int
    sentence_index: int
    source_index: int | None = None
    status: JudgementStatus
    verdict: Verdict
    judge: str
    lexical_verdict: Verdict
    lexical_judge: str
    model_verdict: Verdict | None = None
    rationale: str | None = None
    evidence: list[EvidenceQuote] = Field(default_factory=list)
    disagrees: bool = False
    cached: bool = False
    detail: str | None = None


class JudgingCost(Model):
    """What the opinions of one answer cost: tokens, money (when prices are configured) and
    the judge's wall time."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float | None = None
    latency_ms: float = 0.0


class AnswerJudged(Model):
    """`citeflow.answer.judged.v1`."""

    answer_id: str
    tenant: str
    # The model judge, e.g. `openai:gpt-4o-mini`, `anthropic:claude-3-5-haiku-latest`,
    # `nli:hhem-2.1-open`.
    judge: str
    # Which citations were sent: `all`, or `doubtful` (partial, unverifiable, cross-language).
    scope: Literal["all", "doubtful"]
    judgements: list[CitationJudgement] = Field(default_factory=list)
    # Citations whose current verdict differs from the lexical one.
    disagreements: int = 0
    cost: JudgingCost = Field(default_factory=JudgingCost)
    # The judge's circuit breaker when this answer was judged.
    breaker: BreakerState = "closed"
