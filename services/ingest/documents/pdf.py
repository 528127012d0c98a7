"""PDF documents read with PyMuPDF: checked opening and one section per page."""

from __future__ import annotations

from typing import Any

import pymupdf

from services.ingest.documents.limits import IngestLimits
from services.ingest.documents.pdf_text import READ_FLAGS, clean_page_text
from services.ingest.documents.problems import problem
from services.ingest.documents.rejection import DocumentRejection

PDF_MAGIC = b"%PDF-"
# The header may follow some junk; readers look for it in the first kilobyte.
HEADER_WINDOW = 1024
# What PyMuPDF raises on broken files (MuPDF errors are not all RuntimeErrors).
PDF_FAILURES = (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase)


def is_pdf(data: bytes) -> bool:
    """Whether the bytes carry a PDF header."""
    return PDF_MAGIC in data[:HEADER_WINDOW]


def open_pdf(data: bytes, limits: IngestLimits) -> tuple[pymupdf.Document, list[str]]:
    """Open and check a PDF; raises DocumentRejection for what must not be ingested.

    Password-protected PDFs are refused; PDFs encrypted with only an owner password are
    refused when their permissions forbid copying text, else noted as a problem.
    """
    if not is_pdf(data):
        raise DocumentRejection("not_a_pdf", "the document has no PDF header")
    try:
        document = pymupdf.open(stream=data, filetype="pdf")
    except PDF_FAILURES as exc:
        raise DocumentRejection("unreadable_pdf", f"the PDF cannot be opened: {exc}") from None
    if document.needs_pass:
        raise DocumentRejection("pdf_password_protected", "the PDF needs a password to open")
    problems: list[str] = []
    encryption = (document.metadata or {}).get("encryption")
    if encryption:
        # PDF_PERM_COPY is missing from PyMuPDF's type information, not from the module.
        if not document.permissions & pymupdf.PDF_PERM_COPY:  # type: ignore[attr-defined]
            raise DocumentRejection(
                "pdf_encrypted",
                f"the PDF is encrypted ({encryption}) and does not permit text extraction",
            )
        problems.append(problem(
            "pdf_encrypted_owner_only",
            f"the PDF is encrypted ({encryption}) without a user password"))
    try:
        pages = document.page_count
    except PDF_FAILURES as exc:
        raise DocumentRejection("invalid_page_tree", f"the PDF page tree is broken: {exc}") from None
    if pages == 0:
        raise DocumentRejection("empty_pdf", "the PDF has no pages")
    if pages > limits.max_pdf_pages:
        raise DocumentRejection(
            "too_many_pages", f"the PDF has {pages} pages (limit {limits.max_pdf_pages})"
        )
    return document, problems


def pdf_sections(
    document: pymupdf.Document, doc_id: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """One section record per page (1-based `page`), flagging pages without a text layer."""
    sections: list[dict[str, Any]] = []
    problems: list[str] = []
    for index in range(document.page_count):
        section_id = f"{doc_id}:{index}"
        try:
            text = clean_page_text(document.load_page(index).get_text(flags=READ_FLAGS))
        except PDF_FAILURES as exc:
            text = ""
            problems.append(problem("page_unreadable", f"page {index + 1}: {exc}"))
        if not text:
            problems.append(problem(
                "no_text_layer", f"page {index + 1} has no text layer (scanned?); it needs OCR"))
        sections.append({
            "section_id": section_id, "index": index, "title": None, "href": None,
            "linear": True, "page": index + 1, "has_text_layer": bool(text), "text": text,
        })
    return sections, problems
