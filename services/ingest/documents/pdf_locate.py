"""Placing a quote on PDF pages for the reader: character-precise rectangles, quote first.

Each page's text is laid out from PyMuPDF's `rawdict` characters (ligatures expanded the
way ingest extracts them: each letter of a ligature glyph, in logical order, has the glyph's
box), one line break between lines, so every character of the text has its own box. The
quote is found with the reader's normalisation (`quote_match`) in the hinted page and its
neighbours joined (a quote that crosses a page break is found, and marked on both pages); when the hint is wrong the whole document is searched and the
result says where the quote really is. Rectangles are the union of the matched characters'
boxes per line, in points of the page as displayed (its /Rotate applied, origin top left),
so they cover exactly the quoted characters, never whole lines. Below the confidence
threshold, or on a page without a text layer, nothing is highlighted and a note says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pymupdf

from services.ingest.documents.pdf import PDF_FAILURES
from services.ingest.documents.pdf_text import READ_FLAGS, expand_ligatures
from services.ingest.documents.quote_match import Found, SearchText, find_quote
from services.ingest.documents.rejection import DocumentRejection

Box = tuple[float, float, float, float]
NOT_ON_PAGE = "passage not located on this page"
NO_TEXT_LAYER = "page only, no text layer"


@dataclass
class PageText:
    """A page's laid-out text; `boxes[i]` is the box of `text[i]` and `lines[i]` its line
    number (None for the breaks between lines)."""

    number: int
    text: str
    boxes: list[Box | None]
    lines: list[int | None]
    matrix: pymupdf.Matrix
    width: float
    height: float


def page_text(page: pymupdf.Page, number: int) -> PageText:
    """The characters of one page with their boxes."""
    chars: list[str] = []
    boxes: list[Box | None] = []
    lines: list[int | None] = []
    line_number = 0
    raw = page.get_text("rawdict", flags=READ_FLAGS)
    for block in raw.get("blocks", []):
        for line in block.get("lines", []):
            for span in line.get("spans", []):
                for char in span.get("chars", []):
                    letters, box = expand_ligatures(char["c"]), tuple(char["bbox"])
                    chars.append(letters)
                    boxes.extend([box] * len(letters))
                    lines.extend([line_number] * len(letters))
            chars.append("\n")
            boxes.append(None)
            lines.append(None)
            line_number += 1
    return PageText(number, "".join(chars), boxes, lines, page.rotation_matrix,
                    round(page.rect.width, 2), round(page.rect.height, 2))


@dataclass
class PdfIndex:
    """The laid-out text of a document's pages and its searchable (normalised) form, both
    made on first use of each page."""

    document: pymupdf.Document
    size: int = 0  # bytes of the PDF (the reader's cache weighs by it)
    _pages: dict[int, PageText] = field(default_factory=dict)
    _searchable: dict[int, SearchText] = field(default_factory=dict)

    @property
    def page_count(self) -> int:
        return int(self.document.page_count)

    def page(self, number: int) -> PageText:
        if not 1 <= number <= self.page_count:
            raise DocumentRejection(
                "page_out_of_range", f"page {number} is not in 1..{self.page_count}"
            )
        found = self._pages.get(number)
        if found is None:
            try:
                found = page_text(self.document.load_page(number - 1), number)
            except PDF_FAILURES as exc:
                raise DocumentRejection("unreadable_page", f"page {number}: {exc}") from None
            self._pages[number] = found
        return found

    def searchable(self, number: int) -> SearchText:
        found = self._searchable.get(number)
        if found is None:
            found = self._searchable[number] = SearchText(self.page(number).text)
        return found


def _rects(found: Found, starts: Run) -> dict[int, list[list[float]]]:
    """Per page number, one rectangle per line run of the matched characters."""
    result: dict[int, list[list[float]]] = {}
    for offset, page in starts:
        low = max(found.start, offset) - offset
        high = min(found.end, offset + len(page.text)) - offset
        runs: dict[int, list[float]] = {}
        for index in range(max(low, 0), high):
            box, line = page.boxes[index], page.lines[index]
            if box is None or line is None or not page.text[index].strip():
                continue
            run = runs.get(line)
            if run is None:
                runs[line] = list(box)
            else:
                run[0], run[1] = min(run[0], box[0]), min(run[1], box[1])
                run[2], run[3] = max(run[2], box[2]), max(run[3], box[3])
        rects = []
        for run in runs.values():
            rect = pymupdf.Rect(run) * page.matrix
            rects.append([round(v, 2) for v in (rect.x0, rect.y0, rect.x1, rect.y1)])
        if rects:
            result[page.number] = rects
    return result


Run = list[tuple[int, PageText]]  # where each page's text begins in a searched text


def _on_page(index: PdfIndex, number: int, quote: tuple[str, str, str],
             approximate: bool) -> tuple[Found, Run] | None:
    found = find_quote(index.searchable(number), *quote, approximate=approximate)
    return None if found is None else (found, [(0, index.page(number))])


def _across(index: PdfIndex, first: int, quote: tuple[str, str, str]) -> tuple[Found, Run] | None:
    """An exact match that starts on page `first` and ends on the next one: the end of one
    and the start of the other, a line break between them, searched together."""
    before, after = index.page(first), index.page(first + 1)
    reach = 2 * len(quote[0]) + 64
    head = before.text[-reach:]
    text = head + "\n" + after.text[:reach]
    found = find_quote(text, *quote, approximate=False)
    if found is None or found.start >= len(head) or found.end <= len(head) + 1:
        return None  # not across the break (each page alone was searched already)
    return found, [(len(head) - len(before.text), before), (len(head) + 1, after)]


def _search(index: PdfIndex, hint: int, quote: tuple[str, str, str]
            ) -> tuple[Found, Run] | None:
    """The hinted page, then across its page breaks, then its neighbours (approximate
    matches allowed there); then every other page and page break, exact matches only (an
    approximate match far from the hint is not confident enough to highlight)."""
    count = index.page_count
    near = [n for n in (hint, hint - 1, hint + 1) if 1 <= n <= count]
    breaks = [n for n in (hint - 1, hint) if 1 <= n < count]
    # (page, approximate) searches one page; (page, None) the break after it.
    attempts: list[tuple[int, bool | None]] = [(hint, False)]
    attempts += [(n, None) for n in breaks]
    attempts += [(n, False) for n in near if n != hint]
    attempts += [(n, True) for n in near]
    attempts += [(n, False) for n in range(1, count + 1) if n not in near]
    attempts += [(n, None) for n in range(1, count) if n not in breaks]
    for number, approximate in attempts:
        result = (_across(index, number, quote) if approximate is None
                  else _on_page(index, number, quote, approximate))
        if result is not None:
            return result
    return None


def locate(
    index: PdfIndex, page: int, exact: str, prefix: str = "", suffix: str = ""
) -> dict[str, Any]:
    """Where the quote is, starting from the hinted `page`: `{page, found, match,
    confidence, pages: {n: rects}, rects (on the hinted page), moved, has_text_layer,
    width, height, note}`."""
    hinted = index.page(page)
    has_text = bool(hinted.text.strip())
    result = _search(index, page, (exact, prefix, suffix)) if exact.strip() else None
    placed = _rects(*result) if result else {}
    view: dict[str, Any] = {
        "page": page, "found": bool(placed), "match": None, "confidence": 0.0,
        "pages": {str(n): rects for n, rects in sorted(placed.items())},
        "rects": placed.get(page, []), "moved": bool(placed) and page not in placed,
        "has_text_layer": has_text, "width": hinted.width, "height": hinted.height,
        "note": None,
    }
    if result and placed:
        view["match"], view["confidence"] = result[0].match, result[0].confidence
        if view["moved"]:
            where = ", ".join(view["pages"])
            view["note"] = f"passage found on page {where}, not on page {page}"
    else:
        view["note"] = NOT_ON_PAGE if has_text else NO_TEXT_LAYER
    return view


def render_png(document: pymupdf.Document, number: int, scale: float) -> bytes:
    """Page `number` (1-based) as PNG at `scale` (1.0 = 72 dpi), as displayed."""
    if not 1 <= number <= document.page_count:
        raise DocumentRejection(
            "page_out_of_range", f"page {number} is not in 1..{document.page_count}"
        )
    try:
        pixmap = document.load_page(number - 1).get_pixmap(matrix=pymupdf.Matrix(scale, scale))
        return bytes(pixmap.tobytes("png"))
    except PDF_FAILURES as exc:
        raise DocumentRejection("unreadable_page", f"page {number}: {exc}") from None
