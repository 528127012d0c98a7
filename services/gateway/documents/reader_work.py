"""The reader's CPU work, run in the reader processes (renderer.py), never in a gateway
process: parsing and sanitising EPUB chapters, marking quotes, locating quotes on PDF
pages, reading images out of containers. lxml, bleach and MuPDF hold the GIL for long
stretches, so in a gateway thread they stalled every request. Each reader
process keeps its own byte-bounded DocumentLibrary per document store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.formatting.escaping import bidi_in_markup, visible_bidi
from services.gateway.documents.library import DocumentLibrary
from services.ingest.documents.chapter_marks import chapter_of_quote, prepare_chapter
from services.ingest.documents.pdf_locate import locate
from services.ingest.documents.store import LocalDocumentStore

_libraries: dict[str, DocumentLibrary] = {}

QuoteArgs = tuple[str, str, str]  # exact, prefix, suffix


def _library(root: str) -> DocumentLibrary:
    found = _libraries.get(root)
    if found is None:
        store = LocalDocumentStore(root)
        found = _libraries[root] = DocumentLibrary(store, Path(root) / ".reader-cache")
    return found


def chapter_job(root: str, path: str, sha256: str, doc_id: str, href: str,
                quote: QuoteArgs | None) -> dict[str, Any]:
    """The chapter view: sanitised, the quote marked (or where it really is); its explicit
    directional controls shown as visible tokens and its marks written as references, as
    in the HTML rendering (the quote is found in the text as it is)."""
    library = _library(root)
    view = library.chapter(path, sha256, doc_id, href)
    if quote is None:
        html, highlight = prepare_chapter(view["html"])
    else:
        exact, prefix, suffix = quote
        html, highlight = prepare_chapter(view["html"], exact, prefix, suffix)
        if highlight is not None and not highlight["found"]:
            # The chapter was only a hint: say where the quote really is, if anywhere.
            elsewhere = chapter_of_quote(library.chapter_texts(path, sha256), exact, prefix,
                                         suffix, skip=href)
            highlight["found_in"] = elsewhere
            if elsewhere:
                highlight["note"] = f"passage found in {elsewhere}, not in this chapter"
    title = view["title"]
    return {**view, "doc_id": doc_id, "html": bidi_in_markup(html),
            "title": visible_bidi(title) if title else title, "highlight": highlight}


def highlights_job(root: str, path: str, sha256: str, number: int,
                   quote: QuoteArgs) -> dict[str, Any]:
    """The quote's rectangles on page `number` (or the page it moved to)."""
    library = _library(root)
    index = library.pdf(path, sha256)
    with library.lock(sha256):
        return dict(locate(index, number, *quote))


def resource_job(root: str, path: str, sha256: str, name: str) -> tuple[bytes, str] | None:
    """A raster image of the EPUB and its media type (None: not one)."""
    return _library(root).resource(path, sha256, name)
