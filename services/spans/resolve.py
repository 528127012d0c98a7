"""Quotes to `SourceSpan`s: one span per section where the quote occurs."""

from __future__ import annotations

from collections.abc import Collection

from schemas.construct import construct
from schemas.spans import SourceSpan
from services.spans.locators import Locators
from services.spans.search import Hit, QuoteFinder


def source_span(hit: Hit, locators: Locators) -> SourceSpan:
    """The span of a hit, in section offsets (and UTF-16 ones when the section prefix is
    known)."""
    piece, start, end = hit.piece, hit.start, hit.end
    source, section_start = piece.source, piece.section_start
    place = piece.place_at(start)
    if section_start:
        start_utf16 = end_utf16 = None
    else:
        start_utf16, end_utf16 = piece.utf16(start), piece.utf16(end)
    return construct(
        SourceSpan,
        {
            "doc_id": source.doc_id,
            "section_id": piece.section_id,
            "source_index": source.index,
            "chunk_id": place.chunk.chunk_id,
            "start_char": section_start + start,
            "end_char": section_start + end,
            "start_utf16": start_utf16,
            "end_utf16": end_utf16,
            "quote": piece.text[start:end],
            "locator": locators.at(piece, start, end, place),
        },
    )


def resolve_quote(
    finder: QuoteFinder, locators: Locators, quote: str, preferred: Collection[int] = ()
) -> list[SourceSpan]:
    """Spans of `quote`: the first occurrence in each section of the `preferred` sources (the
    unit's own) that have it, else of every source that has it."""
    return [source_span(hit, locators) for hit in finder.find(quote, preferred)]
