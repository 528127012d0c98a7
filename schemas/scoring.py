"""`answer.scored`: retrieval-result scoring of every source."""

from __future__ import annotations

from pydantic import Field

from schemas.answers import AnswerSubmitted
from schemas.base import Model


class ScoreExplanation(Model):
    """How a combined score was made: each part, its weight, and a sentence."""

    parts: dict[str, float]
    weights: dict[str, float]
    text: str


class SourceScore(Model):
    """The scoring result of one source."""

    index: int
    retriever_score: float | None = None
    retriever_norm: float | None = None
    lexical: float = 0.0
    support: float = 0.0
    score: float = Field(ge=0.0, le=1.0)
    rank: int = Field(ge=1)
    eligible: bool
    cited: bool
    citation_count: int = 0
    explanation: ScoreExplanation


class AnswerScored(Model):
    """`citeflow.answer.scored.v1`."""

    answer: AnswerSubmitted
    scores: list[SourceScore]
    # Eligible source indexes ordered by score, capped at max_citations:
    # the only sources supporting passages are taken from.
    passage_sources: list[int] = Field(default_factory=list)
