"""The reader's PDF page view: a PNG render and highlight rectangles for a quote.

Rectangles are in PDF points of the page as displayed (its /Rotate applied, origin top
left), so they overlay the PNG after scaling by its zoom. Pages without a text layer
(scans) give `found: false` and the page alone (page-only fallback, seed 001).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import pymupdf

from services.ingest.documents.limits import DEFAULT_LIMITS, IngestLimits
from services.ingest.documents.pdf import PDF_FAILURES, open_pdf
from services.ingest.documents.pdf_text import TEXT_FLAGS
from services.ingest.documents.rejection import DocumentRejection

# Search the text as ingest extracts it (ligatures expanded) and across line-end hyphens.
SEARCH_FLAGS = TEXT_FLAGS | pymupdf.TEXT_DEHYPHENATE
PREFIX_CHARS = 50
_TYPOGRAPHIC = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
    "\u00ad": None, "\u200b": None, "\u200c": None, "\u200d": None, "\ufeff": None,
})
_SPACES = re.compile(r"\s+")
_INNER_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")
HIGHLIGHT = (1.0, 0.94, 0.54)


def quote_variants(quote: str) -> list[tuple[str, str]]:
    """Search strings to try, best first, with the name of each match kind."""
    normalised = _SPACES.sub(" ", unicodedata.normalize("NFKC", quote).translate(_TYPOGRAPHIC))
    normalised = normalised.strip()
    variants = [("exact", quote.strip()), ("normalised", normalised),
                ("dehyphenated", _INNER_HYPHEN.sub("", normalised))]
    if len(normalised) > PREFIX_CHARS:
        variants.append(("prefix", normalised[:PREFIX_CHARS].rsplit(" ", 1)[0]))
    unique: list[tuple[str, str]] = []
    seen: set[str] = set()
    for kind, text in variants:
        if text and text not in seen:
            seen.add(text)
            unique.append((kind, text))
    return unique


def find_quote(page: pymupdf.Page, quote: str) -> tuple[str | None, list[pymupdf.Quad]]:
    """The match kind and the quads of the first variant of `quote` found on the page."""
    textpage = page.get_textpage(flags=SEARCH_FLAGS)
    for kind, text in quote_variants(quote):
        quads = page.search_for(text, quads=True, flags=SEARCH_FLAGS, textpage=textpage)
        if quads:
            return kind, quads
    return None, []


def _render(page: pymupdf.Page, quads: list[pymupdf.Quad], png: Path, zoom: float) -> None:
    """Write the page as PNG, the quads highlighted (on the in-memory document only)."""
    if quads:
        annotation = page.add_highlight_annot(quads)
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
) -> dict[str, Any]:
    """`{page, found, match, rects, has_text_layer, width, height, rotation}`; writes the
    page as PNG (with the quote highlighted when found) when `png` is given."""
    document, _ = open_pdf(data, limits)
    with document:
        if not 1 <= number <= document.page_count:
            raise DocumentRejection(
                "page_out_of_range", f"page {number} is not in 1..{document.page_count}"
            )
        try:
            page = document.load_page(number - 1)
            has_text = bool(page.get_text(flags=TEXT_FLAGS).strip())
            kind, quads = find_quote(page, quote) if quote and has_text else (None, [])
            rects = [quad.rect * page.rotation_matrix for quad in quads]
            if png is not None:
                _render(page, quads, png, zoom)
        except PDF_FAILURES as exc:
            raise DocumentRejection("unreadable_page", f"page {number}: {exc}") from None
        return {
            "page": number,
            "found": bool(quads),
            "match": kind,
            "rects": [[round(v, 2) for v in (r.x0, r.y0, r.x1, r.y1)] for r in rects],
            "has_text_layer": has_text,
            "width": round(page.rect.width, 2),
            "height": round(page.rect.height, 2),
            "rotation": page.rotation,
            "png": str(png) if png is not None else None,
        }
