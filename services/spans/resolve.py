"""Quotes to `SourceSpan`s: one span per section where the quote occurs."""

from __future__ import annotations

from collections.abc import Collection

from schemas.construct import maker
from schemas.spans import SourceSpan
from services.spans.locators import Locators
from services.spans.search import QuoteFinder
from services.spans.sections import Piece

_span = maker(SourceSpan)


def source_span(piece: Piece, start: int, end: int, locators: Locators) -> SourceSpan:
    """The span of `piece.text[start:end]`, in section offsets (and UTF-16 ones when the
    section prefix is known)."""
    place = piece.place_at(start)
    section_start = piece.section_start
    start_utf16, end_utf16 = piece.utf16_span(start, end)
    return _span(
        {
            "doc_id": piece.source["doc_id"],
            "section_id": piece.section_id,
            "source_index": piece.source_index,
            "chunk_id": place.chunk_id,
            "start_char": section_start + start,
            "end_char": section_start + end,
            "start_utf16": start_utf16,
            "end_utf16": end_utf16,
            "quote": piece.text[start:end],
            "locator": locators.at(piece, place, start, end),
        }
    )


def resolve_quote(
    finder: QuoteFinder, locators: Locators, quote: str, preferred: Collection[int] = ()
) -> list[SourceSpan]:
    """Spans of `quote`: the first occurrence in each section of the `preferred` sources (the
    unit's own) that have it, else of every source that has it."""
    return [
        source_span(piece, start, end, locators)
        for piece, start, end in finder.find(quote, preferred)
    ]
