"""W3C Web Annotation locators (seed 001): a TextQuoteSelector inside a container.

`exact` is always the source's own text; `prefix` and `suffix` are the (up to) 32 characters
of the section text around it that are known (the piece it was found in). The container is
`epub_text` when the chunk has an `href`, `pdf_text` when it has a `page`, `web` for a web
source with a URL, and `text` (by section id) otherwise.

Each distinct place of an answer gets one locator, shared by the spans and links that use it.
"""

from __future__ import annotations

from schemas.spans import Locator, TextQuoteSelector
from services.spans.models import locator_model, selector_model
from services.spans.sections import ChunkPlace, Piece

CONTEXT_CHARS = 32


def selector(piece: Piece, start: int, end: int) -> TextQuoteSelector:
    """The TextQuoteSelector of `piece.text[start:end]` with its context."""
    text = piece.text
    return selector_model(
        text[start:end],
        text[max(0, start - CONTEXT_CHARS) : start],
        text[end : end + CONTEXT_CHARS],
    )


def locator(piece: Piece, place: ChunkPlace, quote: TextQuoteSelector) -> Locator:
    """The locator of a selector found in `piece`, in the chunk at `place`."""
    chunk, source = place.chunk, piece.source
    if chunk.href:
        return locator_model("epub_text", quote, href=chunk.href)
    if chunk.page is not None:
        return locator_model("pdf_text", quote, page=chunk.page)
    if source.kind == "web" and source.url:
        return locator_model("web", quote, url=source.url)
    return locator_model("text", quote, section_id=piece.section_id)


class Locators:
    """The locators of one answer: one per distinct place (many citations of a source share
    a passage), shared by every model that carries it."""

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict[tuple[int, int, int], Locator] = {}

    def at(self, piece: Piece, start: int, end: int) -> Locator:
        """The locator of `piece.text[start:end]` (its chunk is the one holding `start`)."""
        key = (id(piece), start, end)
        found = self._cache.get(key)
        if found is None:
            found = locator(piece, piece.place_at(start), selector(piece, start, end))
            self._cache[key] = found
        return found
