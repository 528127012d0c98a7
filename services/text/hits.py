"""Lightweight records of the extraction hot path (slotted dataclasses, no validation).

Fields that mean the same as in `schemas.citations` have the same names; `citations` lists
hold positions in the answer's citation list.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class CitationHit:
    """One cited source at one marker. `id` is the cited source's index."""

    id: int
    marker: str
    start: int
    end: int
    source_index: int | None
    valid: bool
    problem: str | None
    cluster_index: int = 0
    sentence_index: int = 0
    page: int | None = None  # a pinpoint's page (`[1, p. 12]`)
    # A span citation (no marker in the text): the supported text, and every
    # sentence it reaches (`sentence_index` is the one its chip is in, the last).
    span_start: int | None = None
    span_end: int | None = None
    sentence_indexes: list[int] | None = None


@dataclass(slots=True)
class ClusterHit:
    """Adjacent markers cited together; `citations` indexes into the citation list."""

    start: int
    end: int
    marker: str
    citations: list[int] = field(default_factory=list)


@dataclass(slots=True)
class SentenceHit:
    """A sentence of the answer; `citations` indexes into the citation list."""

    index: int
    start: int
    end: int
    text: str
    citations: list[int] = field(default_factory=list)


@dataclass(slots=True)
class ProblemHit:
    """A non-fatal finding about a marker."""

    code: str
    message: str
    start: int
    end: int
