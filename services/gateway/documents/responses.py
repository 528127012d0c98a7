"""The JSON documents the reader's routes answer, typed once: the routes build them and the
OpenAPI description is generated from them (`services.gateway.documents.openapi`)."""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict

from services.store.api import DocumentRecord


class DocumentStatus(TypedDict):
    """A document's status: submitted, ingested (sections, chunks) or rejected (reason)."""

    doc_id: str
    status: Literal["submitted", "ingested", "rejected", "dead_lettered"]
    format: str | None
    sha256: str
    sections: int | None
    chunks: int | None
    reason: str | None
    detail: dict[str, object] | None
    submitted_at: str
    updated_at: str
    location: str


class ChapterHighlight(TypedDict, total=False):
    """What became of the quote in a chapter; `found_in` names the chapter holding it when
    the requested one (only a hint) does not."""

    found: bool
    match: Literal["exact", "approximate"] | None
    confidence: float
    marks: int
    occurrences: int
    note: str | None
    found_in: str | None


class ChapterView(TypedDict):
    """A sanitised EPUB chapter with prev/next; the quote marked when one was given."""

    status: str
    doc_id: str
    html: str
    title: str | None
    href: str
    prev_href: str | None
    next_href: str | None
    highlight: ChapterHighlight | None


class PageHighlights(TypedDict):
    """Where a quote is, starting from the hinted page: rectangles `[x0, y0, x1, y1]` in
    points of each page as displayed, per page number (a quote across a page break is on
    two), `moved` when not on the hinted page, a note when nothing is highlighted."""

    page: int
    found: bool
    match: Literal["exact", "approximate"] | None
    confidence: float
    pages: dict[str, list[list[float]]]
    rects: list[list[float]]
    moved: bool
    has_text_layer: bool
    width: float
    height: float
    note: str | None


class GroupHealth(TypedDict):
    group: str
    members: int
    lag: int


class StageHealth(TypedDict):
    stage: str
    group: str
    topics: list[str]
    lag: int
    partitions: int
    consuming: bool
    groups: list[GroupHealth]
    dead_letters: int
    # The judging stage only: its judge's circuit breaker (closed, open, half_open).
    breaker: NotRequired[str | None]


class PipelineHealth(TypedDict):
    """Consumer lag and dead-letter records of every stage, from the broker."""

    stages: list[StageHealth]
    measured_at: float


def status_document(record: DocumentRecord) -> DocumentStatus:
    return {
        "doc_id": record.doc_id, "status": record.status, "format": record.format,
        "sha256": record.sha256, "sections": record.sections, "chunks": record.chunks,
        "reason": record.reason, "detail": dict(record.detail) if record.detail else None,
        "submitted_at": record.submitted_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
        "location": f"/v1/documents/{record.doc_id}",
    }
