"""Document events: a reference in, sections and chunks out.

Size choice for `documents.ingested`: every section carries its full text, and a chunk is
by definition `section.text[start_char:end_char]`, so chunks carry no text by default
(`text` is null). Repeating it would roughly double the event (more with overlap) for no
information. A producer that wants self-contained chunks sets
`options.include_chunk_text`; ingest refuses documents whose event would not fit the
producer's `max_request_size` (see `services.ingest.documents.limits`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from schemas.base import Model

DocumentFormat = Literal["pdf", "epub"]


class ChunkingOptions(Model):
    """How sections are cut into chunks."""

    chunk_size: int = Field(default=1000, ge=50, le=100_000)
    chunk_overlap: int = Field(default=100, ge=0)
    include_chunk_text: bool = False

    @model_validator(mode="after")
    def _overlap_below_half(self) -> ChunkingOptions:
        if self.chunk_overlap > self.chunk_size // 2:
            raise ValueError("chunk_overlap must be at most half of chunk_size")
        return self


class DocumentSubmitted(Model):
    """`citeflow.document.submitted.v1`: a reference into the document store, never the bytes."""

    doc_id: str = Field(pattern=r"^[A-Za-z0-9._:-]{1,200}$")
    uri: str = Field(min_length=1, max_length=2000)
    format: DocumentFormat | None = None
    title: str | None = None
    metadata: dict[str, Any] | None = None
    options: ChunkingOptions | None = None


class DocumentSection(Model):
    """An EPUB spine item (`href`, full path inside the container) or a PDF page (`page`)."""

    section_id: str
    index: int
    title: str | None = None
    href: str | None = None
    linear: bool = True
    page: int | None = None
    has_text_layer: bool = True
    text: str


class DocumentChunk(Model):
    """A chunk: exactly its section's text at `[start_char, end_char)`.

    `text` is null unless the submission asked for chunk text (see the module docstring).
    """

    chunk_id: str
    doc_id: str
    section_id: str
    href: str | None = None
    page: int | None = None
    start_char: int
    end_char: int
    text: str | None = None


class DocumentIngested(Model):
    """`citeflow.document.ingested.v1`."""

    doc_id: str
    format: DocumentFormat
    uri: str | None = None
    title: str | None = None
    metadata: dict[str, Any] | None = None
    sections: list[DocumentSection]
    chunks: list[DocumentChunk]
    # Non-fatal findings, each "code: message" (the document is still ingested).
    problems: list[str] = Field(default_factory=list)


class DocumentRejected(Model):
    """`citeflow.document.rejected.v1`: `code` is stable, `message` says what was wrong."""

    doc_id: str | None = None
    uri: str | None = None
    code: str
    message: str
    original_base64: str | None = None
