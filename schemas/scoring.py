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


# The rows of `CarriedExtraction`: the fields of services.text.hits in their declared order
# (a sentence's index and text are left out: its position, and its slice of the answer;
# a citation's positions index `citations`).
CitationRow = tuple[
    int, str, int, int, int | None, bool, str | None, int, int, int | None, int | None,
    int | None, list[int] | None,
]
ClusterRow = tuple[int, int, str, list[int]]
SentenceRow = tuple[int, int, list[int]]
ProblemRow = tuple[str, str, int, int]


class CarriedExtraction(Model):
    """The scoring stage's citation extraction of the answer, carried to the citations stage
    so that it does not run it again (services/text/carry.py writes and reads the rows).
    Pipeline-internal and optional: without it, or when it does not fit the answer, the
    citations stage extracts the citations itself."""

    citations: list[CitationRow] = Field(default_factory=list, description=(
        "Per citation: [id, marker, start, end, source_index, valid, problem, "
        "cluster_index, sentence_index, page, span_start, span_end, sentence_indexes]."))
    clusters: list[ClusterRow] = Field(default_factory=list, description=(
        "Per cluster: [start, end, marker, positions of its citations]."))
    sentences: list[SentenceRow] = Field(default_factory=list, description=(
        "Per sentence, in order: [start, end, positions of its citations]."))
    problems: list[ProblemRow] = Field(default_factory=list, description=(
        "Per problem: [code, message, start, end]."))
    pages: list[tuple[int, int, int]] = Field(default_factory=list, description=(
        "Per pinpoint (`[1, p. 12]`): [sentence index, source index, page]."))
    tokens: dict[str, list[str]] = Field(default_factory=dict, description=(
        "The word tokens of each citing sentence (markers left out), by sentence index."))
    terms: dict[str, list[str]] = Field(default_factory=dict, description=(
        "The content terms of each citing sentence, sorted, by sentence index."))


class AnswerScored(Model):
    """`citeflow.answer.scored.v1`."""

    answer: AnswerSubmitted
    scores: list[SourceScore]
    # Eligible source indexes ordered by score, capped at max_citations:
    # the only sources supporting passages are taken from.
    passage_sources: list[int] = Field(default_factory=list)
    carried: CarriedExtraction | None = None
