"""Quotes to `SourceSpan`s: one span per section where the quote occurs."""

from __future__ import annotations

from collections.abc import Collection

from schemas.spans import SourceSpan
from services.spans.locators import locate
from services.spans.search import Hit, QuoteFinder


def source_span(hit: Hit) -> SourceSpan:
    """The span of a hit, in section offsets (UTF-16 ones when the section prefix is known)."""
    piece = hit.piece
    place = piece.place_at(hit.start)
    return SourceSpan(
        doc_id=piece.source.doc_id,
        section_id=piece.section_id,
        source_index=piece.source.index,
        chunk_id=place.chunk.chunk_id,
        start_char=piece.section_start + hit.start,
        end_char=piece.section_start + hit.end,
        start_utf16=piece.utf16(hit.start),
        end_utf16=piece.utf16(hit.end),
        quote=hit.text,
        locator=locate(piece, hit.start, hit.end),
    )


def resolve_quote(
    finder: QuoteFinder, quote: str, preferred: Collection[int] = ()
) -> list[SourceSpan]:
    """Spans of `quote` in all retrieved chunks: the first occurrence in each section, the
    sources in `preferred` (the unit's own sources) first, then source order."""
    seen: set[tuple[int, str]] = set()
    hits: list[Hit] = []
    for hit in finder.find(quote):
        key = (hit.piece.source.index, hit.piece.section_id)
        if key not in seen:
            seen.add(key)
            hits.append(hit)
    hits.sort(key=lambda hit: hit.piece.source.index not in preferred)
    return [source_span(hit) for hit in hits]
