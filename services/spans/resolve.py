"""Quotes to `SourceSpan`s: one span per section where the quote occurs."""

from __future__ import annotations

from collections.abc import Collection

from schemas.spans import SourceSpan
from services.spans.locators import Locators
from services.spans.models import construct
from services.spans.search import Hit, QuoteFinder


def source_span(hit: Hit, locators: Locators) -> SourceSpan:
    """The span of a hit, in section offsets (and UTF-16 ones when the section prefix is
    known)."""
    piece = hit.piece
    return construct(
        SourceSpan,
        {
            "doc_id": piece.source.doc_id,
            "section_id": piece.section_id,
            "source_index": piece.source.index,
            "chunk_id": piece.place_at(hit.start).chunk.chunk_id,
            "start_char": piece.section_start + hit.start,
            "end_char": piece.section_start + hit.end,
            "start_utf16": piece.utf16(hit.start),
            "end_utf16": piece.utf16(hit.end),
            "quote": hit.text,
            "locator": locators.at(piece, hit.start, hit.end),
        },
    )


def resolve_quote(
    finder: QuoteFinder, locators: Locators, quote: str, preferred: Collection[int] = ()
) -> list[SourceSpan]:
    """Spans of `quote`: the first occurrence in each section of the `preferred` sources (the
    unit's own) that have it, else of every source that has it."""
    return [source_span(hit, locators) for hit in finder.find(quote, preferred)]
