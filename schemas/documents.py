"""Document events (SPEC §4.6): a reference in, sections and chunks out."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from schemas.base import Model

DocumentFormat = Literal["pdf", "epub"]


class ChunkingOptions(Model):
    """How sections are cut into chunks."""

    chunk_size: int = Field(default=1000, ge=50)
    chunk_overlap: int = Field(default=100, ge=0)


class DocumentSubmitted(Model):
    """`citeflow.document.submitted.v1`: a reference into the document store, never the bytes."""

    doc_id: str = Field(pattern=r"^[A-Za-z0-9._:-]{1,200}$")
    uri: str
    format: DocumentFormat | None = None
    title: str | None = None
    metadata: dict[str, Any] | None = None
    options: ChunkingOptions | None = None


class DocumentSection(Model):
    """An EPUB spine item or a PDF page."""

    section_id: str
    index: int
    title: str | None = None
    href: str | None = None
    page: int | None = None
    has_text_layer: bool = True
    text: str


class DocumentChunk(Model):
    """A chunk: exactly its section's text at `[start_char, end_char)`."""

    chunk_id: str
    doc_id: str
    section_id: str
    href: str | None = None
    page: int | None = None
    start_char: int
    end_char: int
    text: str


class DocumentIngested(Model):
    """`citeflow.document.ingested.v1`."""

    doc_id: str
    format: DocumentFormat
    title: str | None = None
    metadata: dict[str, Any] | None = None
    sections: list[DocumentSection]
    chunks: list[DocumentChunk]
    problems: list[str] = Field(default_factory=list)


class DocumentRejected(Model):
    """`citeflow.document.rejected.v1`."""

    doc_id: str | None = None
    uri: str | None = None
    code: str
    message: str
    original_base64: str | None = None
