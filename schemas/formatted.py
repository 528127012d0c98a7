"""`answer.formatted` v1: the contract for frontends and dashboards."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from schemas.base import Model, Problem
from schemas.citations import (
    Citation,
    Cluster,
    Coverage,
    Segment,
    Sentence,
    SentenceRef,
)
from schemas.spans import AnswerQuality, AnswerUnit, Link, Support


class FormattedCitation(Citation):
    """A citation with its support verdict (null for an invalid citation)."""

    support: Support | None = None


class FormattedSource(Model):
    """A source as a frontend lists it."""

    index: int
    kind: Literal["document", "web"]
    title: str | None = None
    url: str | None = None
    # Additive: `url` when it is safe to link (http/https with a host, or mailto),
    # normalised by the formatter; null otherwise. Frontends should link this, not `url`.
    safe_url: str | None = None
    doc_id: str | None = None
    source_id: str | None = None
    format: str | None = None
    retriever_score: float | None = None
    score: float
    rank: int
    eligible: bool
    cited: bool
    citation_count: int
    reference: str
    excerpt: str
    # Additive: the source's detected language (BCP 47 primary subtag, `und` when
    # undetermined) and script (ISO 15924).
    language: str | None = None
    script: str | None = None


class AnswerUnits(Model):
    """`answer_units` of the formatted answer."""

    units: list[AnswerUnit] = Field(default_factory=list)


class Renderings(Model):
    """The answer rendered for display; only the renderings asked for are set."""

    markdown: str | None = None
    html: str | None = None
    plain: str | None = None


class AnswerFormatted(Model):
    """`citeflow.answer.formatted.v1`."""

    answer_id: str
    query: str | None = None
    text: str
    citations: list[FormattedCitation]
    clusters: list[Cluster]
    sentences: list[Sentence]
    citation_map: dict[str, list[SentenceRef]]
    sentence_map: dict[str, list[int]]
    segments: list[Segment]
    answer_units: AnswerUnits
    sources: list[FormattedSource]
    links: list[Link]
    coverage: Coverage
    problems: list[Problem]
    renderings: Renderings
    metadata: dict[str, Any] | None = None
    # Additive: ALCE citation recall/precision and verdict counts.
    quality: AnswerQuality | None = None
    # Additive: the answer's detected language (BCP 47 primary subtag, `und` when
    # undetermined), script (ISO 15924) and writing direction.
    language: str | None = None
    script: str | None = None
    direction: Literal["ltr", "rtl"] | None = None
