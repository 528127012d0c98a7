"""W3C Web Annotation locators (seed 001): a TextQuoteSelector inside a container.

`exact` is always the source's own text; `prefix` and `suffix` are the (up to) 32 characters
of the section text around it that are known (the piece it was found in). The container is
`epub_text` when the chunk has an `href`, `pdf_text` when it has a `page`, `web` for a web
source with a URL, and `text` (by section id) otherwise.
"""

from __future__ import annotations

from schemas.spans import Locator, TextQuoteSelector
from services.spans.sections import ChunkPlace, Piece

CONTEXT_CHARS = 32


def selector(piece: Piece, start: int, end: int) -> TextQuoteSelector:
    """The TextQuoteSelector of `piece.text[start:end]` with its context."""
    text = piece.text
    return TextQuoteSelector(
        exact=text[start:end],
        prefix=text[max(0, start - CONTEXT_CHARS) : start],
        suffix=text[end : end + CONTEXT_CHARS],
    )


def locator(piece: Piece, place: ChunkPlace, quote: TextQuoteSelector) -> Locator:
    """The locator of a selector found in `piece`, in the chunk at `place`."""
    chunk, source = place.chunk, piece.source
    if chunk.href:
        return Locator(type="epub_text", href=chunk.href, selector=quote)
    if chunk.page is not None:
        return Locator(type="pdf_text", page=chunk.page, selector=quote)
    if source.kind == "web" and source.url:
        return Locator(type="web", url=source.url, selector=quote)
    return Locator(type="text", section_id=piece.section_id, selector=quote)


def locate(piece: Piece, start: int, end: int) -> Locator:
    """The locator of `piece.text[start:end]` (the chunk is the one holding `start`)."""
    return locator(piece, piece.place_at(start), selector(piece, start, end))
