"""A PDF page view for `citeflow page`: the reader's placement of a quote
(`pdf_locate.locate`, on the text as ingest reads it) and, optionally, a PNG render with the
quote highlighted.

Rectangles are in PDF points of the page as displayed (its /Rotate applied, origin top
left), so they overlay the PNG after scaling by its zoom. Pages without a text layer
(scans) give `found: false` and the page alone (page-only fallback).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf

from services.ingest.documents.limits import DEFAULT_LIMITS, IngestLimits
from services.ingest.documents.pdf import PDF_FAILURES, open_pdf
from services.ingest.documents.pdf_locate import PdfIndex, locate
from services.ingest.documents.rejection import DocumentRejection

HIGHLIGHT = (1.0, 0.94, 0.54)


def _render(page: pymupdf.Page, rects: list[list[float]], png: Path, zoom: float) -> None:
    """Write the page as PNG, `rects` (as displayed) highlighted on the in-memory document."""
    if rects:
        annotation = page.add_highlight_annot(
            [pymupdf.Rect(rect) * page.derotation_matrix for rect in rects]
        )
        annotation.set_colors(stroke=HIGHLIGHT)
        annotation.update()
    page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), annots=True).save(str(png))


def page_view(
    data: bytes,
    number: int,
    quote: str | None = None,
    png: Path | None = None,
    zoom: float = 2.0,
    limits: IngestLimits = DEFAULT_LIMITS,
    prefix: str = "",
    suffix: str = "",
) -> dict[str, Any]:
    """The reader's placement of `quote` from page `number` (`locate`'s view: page, found,
    match, confidence, pages, rects, moved, has_text_layer, width, height, note) with the
    page's `rotation` and `png`; writes the page as PNG (the quote's rectangles on it
    highlighted) when `png` is given."""
    document, _ = open_pdf(data, limits)
    with document:
        view = locate(PdfIndex(document, len(data)), number, quote or "", prefix, suffix)
        if not quote and view["has_text_layer"]:
            view["note"] = None  # nothing was asked for: nothing is missing
        try:
            page = document.load_page(number - 1)
            if png is not None:
                _render(page, view["rects"], png, zoom)
        except PDF_FAILURES as exc:
            raise DocumentRejection("unreadable_page", f"page {number}: {exc}") from None
        return {**view, "rotation": page.rotation, "png": str(png) if png is not None else None}
