"""W3C Web Annotation locators (seed 001): a TextQuoteSelector inside a container.

`exact` is always the source's own text; `prefix` and `suffix` are the (up to) 32 characters
of the section text around it that are known (the piece it was found in). The container is
`epub_text` when the chunk has an `href`, `pdf_text` when it has a `page`, `web` for a web
source with a URL, and `text` (by section id) otherwise.

Locators are built as payloads (plain dicts), once per distinct place, and validated together
at the end (`services.spans.payload`).
"""

from __future__ import annotations

from schemas.spans import Locator
from services.spans.payload import Payload, validate_locators
from services.spans.sections import ChunkPlace, Piece

CONTEXT_CHARS = 32


def selector(piece: Piece, start: int, end: int) -> Payload:
    """The TextQuoteSelector of `piece.text[start:end]` with its context."""
    text = piece.text
    return {
        "type": "TextQuoteSelector",
        "exact": text[start:end],
        "prefix": text[max(0, start - CONTEXT_CHARS) : start],
        "suffix": text[end : end + CONTEXT_CHARS],
    }


def locator(piece: Piece, place: ChunkPlace, quote: Payload) -> Payload:
    """The locator of a selector found in `piece`, in the chunk at `place`."""
    chunk, source = place.chunk, piece.source
    if chunk.href:
        return {"type": "epub_text", "href": chunk.href, "selector": quote}
    if chunk.page is not None:
        return {"type": "pdf_text", "page": chunk.page, "selector": quote}
    if source.kind == "web" and source.url:
        return {"type": "web", "url": source.url, "selector": quote}
    return {"type": "text", "section_id": piece.section_id, "selector": quote}


class Locators:
    """The locators of one answer: one payload per distinct place (many citations of a source
    share a passage), validated once and shared by every model that carries it."""

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict[tuple[int, int, int], Payload] = {}

    def at(self, piece: Piece, start: int, end: int) -> Payload:
        """The locator of `piece.text[start:end]` (its chunk is the one holding `start`)."""
        key = (id(piece), start, end)
        found = self._cache.get(key)
        if found is None:
            found = locator(piece, piece.place_at(start), selector(piece, start, end))
            self._cache[key] = found
        return found

    def add(self, payload: Payload) -> Payload:
        """Register a locator built elsewhere (e.g. one without context)."""
        self._cache[(id(payload), -1, -1)] = payload
        return payload

    def validated(self) -> dict[int, Locator]:
        """Every locator validated in one call, keyed by the `id` of its payload."""
        payloads = list(self._cache.values())
        return {id(p): model for p, model in zip(payloads, validate_locators(payloads))}
