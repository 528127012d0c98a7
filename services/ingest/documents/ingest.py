"""One document's bytes to its `documents.ingested` payload (or a DocumentRejection)."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from schemas.documents import (
    ChunkingOptions,
    DocumentChunk,
    DocumentFormat,
    DocumentIngested,
    DocumentSection,
)
from services.ingest.documents.chunking import section_chunks
from services.ingest.documents.epub import EpubPackage, open_epub
from services.ingest.documents.limits import DEFAULT_LIMITS, IngestLimits
from services.ingest.documents.pdf import is_pdf, open_pdf, pdf_sections
from services.ingest.documents.problems import problem
from services.ingest.documents.rejection import DocumentRejection
from services.ingest.documents.xhtml import (
    document_texts,
    document_title,
    first_heading,
    parse_document,
)

_CHUNKS = TypeAdapter(list[DocumentChunk])
# UTF-8 takes at most 4 bytes per character (JSON escapes like \n take 2).
_MAX_BYTES_PER_CHAR = 4
# Per-chunk JSON overhead in the event (ids, offsets, keys), used for the size estimate.
_CHUNK_OVERHEAD_BYTES = 160


def detect_format(data: bytes, declared: DocumentFormat | None, name: str = "") -> DocumentFormat:
    """The document's format: as declared (checked against its bytes), else sniffed."""
    if declared == "pdf" and not is_pdf(data):
        raise DocumentRejection("not_a_pdf", "declared format pdf, but the bytes are not a PDF")
    if declared == "epub" and not data.startswith(b"PK"):
        raise DocumentRejection("not_a_zip", "declared format epub, but the bytes are not a zip")
    if declared is not None:
        return declared
    if is_pdf(data):
        return "pdf"
    if data.startswith(b"PK"):
        return "epub"
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix == "pdf":
        raise DocumentRejection("not_a_pdf", f"{name!r} is not a PDF (no PDF header)")
    if suffix == "epub":
        raise DocumentRejection("not_a_zip", f"{name!r} is not an EPUB (not a zip container)")
    raise DocumentRejection("unknown_format", "the document is neither a PDF nor a zip container")


def epub_sections(
    package: EpubPackage, doc_id: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """One section record per spine item: href, nav/NCX title (or first heading), text."""
    sections: list[dict[str, Any]] = []
    problems: list[str] = []
    roots = []
    for index, entry in enumerate(package.spine):
        section_id = f"{doc_id}:{index}"
        root, recovered = parse_document(entry.content)
        if recovered:
            problems.append(problem(
                "not_well_formed", f"{entry.href} is not well-formed XHTML; parsed as HTML"))
        roots.append(root)
        title = package.toc_titles.get(entry.href) or first_heading(root) or document_title(root)
        sections.append({
            "section_id": section_id, "index": index, "title": title, "href": entry.href,
            "linear": entry.linear, "page": None, "has_text_layer": True,
        })
    for section, text in zip(sections, document_texts(roots), strict=True):
        section["text"] = text
    return sections, problems


def _check_event_size(
    sections: list[dict[str, Any]], chunk_count: int, options: ChunkingOptions,
    limits: IngestLimits,
) -> None:
    """Refuse documents whose `documents.ingested` would not fit a Kafka message."""
    copies = 2 + options.chunk_overlap / options.chunk_size if options.include_chunk_text else 1
    overhead = chunk_count * _CHUNK_OVERHEAD_BYTES
    characters = sum(len(section["text"]) for section in sections)
    if characters * _MAX_BYTES_PER_CHAR * copies + overhead <= limits.max_event_bytes:
        return  # fits even if every character took the most bytes: no need to encode
    text_bytes = sum(len(section["text"].encode("utf-8")) for section in sections)
    estimate = int(text_bytes * copies) + overhead
    if estimate > limits.max_event_bytes:
        raise DocumentRejection(
            "too_large_for_event",
            f"documents.ingested would be about {estimate} bytes "
            f"(limit {limits.max_event_bytes}); split the document",
        )


def ingest_document(
    data: bytes,
    doc_id: str,
    *,
    declared_format: DocumentFormat | None = None,
    name: str = "",
    uri: str | None = None,
    title: str | None = None,
    metadata: dict[str, Any] | None = None,
    options: ChunkingOptions | None = None,
    limits: IngestLimits = DEFAULT_LIMITS,
) -> DocumentIngested:
    """Sections and chunks of one EPUB or PDF; raises DocumentRejection with the reason."""
    if len(data) > limits.max_document_bytes:
        raise DocumentRejection(
            "document_too_large",
            f"the document has {len(data)} bytes (limit {limits.max_document_bytes})",
        )
    options = options or ChunkingOptions()
    fmt = detect_format(data, declared_format, name)
    if fmt == "pdf":
        document, problems = open_pdf(data, limits)
        with document:
            sections, found = pdf_sections(document, doc_id)
            doc_title = title or (document.metadata or {}).get("title") or None
    else:
        package = open_epub(data, limits)
        problems = list(package.problems)
        sections, found = epub_sections(package, doc_id)
        doc_title = title or package.title
    problems.extend(found)
    chunks = [chunk for section in sections for chunk in section_chunks(doc_id, section, options)]
    _check_event_size(sections, len(chunks), options, limits)
    # Sections are built here from str values: constructing them without validation
    # avoids pydantic copying every section text through UTF-8; chunks (small, many) are
    # validated in a single call.
    return DocumentIngested.model_construct(
        doc_id=doc_id, format=fmt, uri=uri, title=doc_title, metadata=metadata,
        sections=[DocumentSection.model_construct(**section) for section in sections],
        chunks=_CHUNKS.validate_python(chunks), problems=problems,
    )
