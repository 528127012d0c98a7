"""W3C Web Annotation locators (seed 001): a TextQuoteSelector inside a container.

`exact` is always the source's own text; `prefix` and `suffix` are the (up to) 32 characters
of the section text around it that are known (the piece it was found in). The container is
`epub_text` when the chunk has an `href`, `pdf_text` when it has a `page`, `web` for a web
source with a URL, and `text` (by section id) otherwise.

Each distinct place of an answer (chunk, start, end) gets one locator (`Locators`), shared by
the spans and the links that point there.
"""

from __future__ import annotations

from schemas.construct import maker
from schemas.spans import Locator, TextQuoteSelector
from services.spans.sections import ChunkPlace, Piece

CONTEXT_CHARS = 32

_selector = maker(TextQuoteSelector)
_locator = maker(Locator)


def text_quote(exact: str, prefix: str = "", suffix: str = "") -> TextQuoteSelector:
    """A TextQuoteSelector."""
    return _selector(
        {
            "type": "TextQuoteSelector",
            "exact": exact,
            "prefix": prefix,
            "suffix": suffix,
        }
    )


def _container(
    piece: Piece, place: ChunkPlace
) -> tuple[str, str | None, int | None, str | None, str | None]:
    """`(type, href, page, section_id, url)` of the chunk at `place` (computed once)."""
    container = place.container
    if container is None:
        chunk, source = place.chunk, piece.source
        if chunk["href"]:
            container = ("epub_text", chunk["href"], None, None, None)
        elif chunk["page"] is not None:
            container = ("pdf_text", None, chunk["page"], None, None)
        elif source["kind"] == "web" and source["url"]:
            container = ("web", None, None, None, source["url"])
        else:
            container = ("text", None, None, piece.section_id, None)
        place.container = container
    return container


def locator(piece: Piece, place: ChunkPlace, quote: TextQuoteSelector) -> Locator:
    """The locator of a selector found in `piece`, in the chunk at `place`."""
    kind, href, page, section_id, url = place.container or _container(piece, place)
    return _locator(
        {
            "type": kind,
            "href": href,
            "page": page,
            "section_id": section_id,
            "url": url,
            "selector": quote,
        }
    )


class Locators:
    """The locators of one answer: one per distinct place, shared by the spans and links
    there."""

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict[tuple[int, int, int], Locator] = {}

    def at(self, piece: Piece, place: ChunkPlace, start: int, end: int) -> Locator:
        """The locator of `piece.text[start:end]` in the chunk at `place` (one of the
        piece's), with (up to) `CONTEXT_CHARS` of context each side."""
        # A place belongs to one piece, so it stands for the piece in the key.
        key = (id(place), start, end)
        found = self._cache.get(key)
        if found is None:
            # `locator` and the selector inlined: this runs for every span and link.
            text = piece.text
            before = start - CONTEXT_CHARS if start > CONTEXT_CHARS else 0
            kind, href, page, section_id, url = place.container or _container(
                piece, place
            )
            found = self._cache[key] = _locator(
                {
                    "type": kind,
                    "href": href,
                    "page": page,
                    "section_id": section_id,
                    "url": url,
                    "selector": _selector(
                        {
                            "type": "TextQuoteSelector",
                            "exact": text[start:end],
                            "prefix": text[before:start],
                            "suffix": text[end : end + CONTEXT_CHARS],
                        }
                    ),
                }
            )
        return found
