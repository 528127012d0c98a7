"""Source sections rebuilt from retrieved chunks (SPEC §4.4).

Chunks of one section (same source, same section key) whose `[start_char, start_char +
len(text))` ranges touch or overlap are joined into one `Piece` of section text, so a quote
running across a chunk boundary is found with section offsets. A gap leaves two pieces of the
same section; an overlap whose texts disagree is not joined either.

Section ids: the chunk's `section_id`; else its `href` (EPUB) or `page-N` (PDF); else, for a
source's position-bearing chunks without any of these, the source reference (`source_ref`).
A chunk without `start_char` is its own section: its id is its `chunk_id`, else the generated
`source-<index>-chunk-<position>`, and offsets are within the chunk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from schemas.answers import Chunk, Source
from services.text.offsets import Utf16Index


def _same(offset: int) -> int:
    return offset


def utf16_offsets(text: str) -> Callable[[int], int]:
    """Code-point to UTF-16 offsets of `text`; the identity (checked in C) when `text` has no
    character outside the Basic Multilingual Plane."""
    if len(text.encode("utf-16-le")) == 2 * len(text):
        return _same
    return Utf16Index(text)


def source_ref(source: Source) -> str:
    """How a source is named in `supporting_sources`: `source_id`, else `doc_id`, else its
    index as a string."""
    return source.source_id or source.doc_id or str(source.index)


@dataclass(slots=True)
class ChunkPlace:
    """Where one chunk lies inside its piece."""

    chunk: Chunk
    position: int
    start: int
    end: int
    # The locator container `(type, href, page, section_id, url)`, filled on first use.
    container: tuple[str, str | None, int | None, str | None, str | None] | None = (
        field(default=None, repr=False, compare=False)
    )


@dataclass(slots=True)
class Piece:
    """Contiguous known text of one section: one chunk or several joined ones."""

    source: Source
    section_id: str
    section_start: int
    text: str
    places: list[ChunkPlace]
    _utf16: Callable[[int], int] | None = field(default=None, repr=False)

    @property
    def prefix_known(self) -> bool:
        """Whether the section text before this piece is known (the piece starts at 0)."""
        return self.section_start == 0

    def place_at(self, offset: int) -> ChunkPlace:
        """The (first) chunk containing piece offset `offset`."""
        for place in self.places:
            if place.start <= offset < place.end:
                return place
        return self.places[-1]

    def utf16(self, offset: int) -> int | None:
        """UTF-16 section offset of piece offset `offset`, when the prefix is known."""
        if self.section_start:
            return None
        convert = self._utf16
        if convert is None:
            convert = self._utf16 = utf16_offsets(self.text)
        return convert(offset)


def _section_key(source: Source, chunk: Chunk) -> str:
    if chunk.section_id:
        return chunk.section_id
    if chunk.href:
        return chunk.href
    if chunk.page is not None:
        return f"page-{chunk.page}"
    return source_ref(source)


def _own_section_id(source: Source, chunk: Chunk, position: int) -> str:
    return chunk.chunk_id or f"source-{source.index}-chunk-{position}"


def _join(
    source: Source, section_id: str, group: list[tuple[int, Chunk]]
) -> list[Piece]:
    """Join position-sorted chunks of one section into pieces."""
    pieces: list[Piece] = []
    current: Piece | None = None
    for position, chunk in group:
        start = chunk.start_char or 0
        if current is not None:
            end = current.section_start + len(current.text)
            local = start - current.section_start
            overlap = current.text[local:]
            if start <= end and (
                chunk.text.startswith(overlap) or overlap.startswith(chunk.text)
            ):
                if len(chunk.text) > len(overlap):
                    current.text += chunk.text[len(overlap) :]
                current.places.append(
                    ChunkPlace(chunk, position, local, local + len(chunk.text))
                )
                continue
        current = Piece(source, section_id, start, chunk.text, [])
        current.places.append(ChunkPlace(chunk, position, 0, len(chunk.text)))
        pieces.append(current)
    return pieces


def build_pieces(source: Source) -> list[Piece]:
    """The pieces of one source, sections in order of first appearance."""
    groups: dict[str, list[tuple[int, Chunk]]] = {}
    pieces: list[Piece] = []
    for position, chunk in enumerate(source.chunks):
        if not chunk.text:
            continue
        if chunk.start_char is None:
            own = Piece(
                source, _own_section_id(source, chunk, position), 0, chunk.text, []
            )
            own.places.append(ChunkPlace(chunk, position, 0, len(chunk.text)))
            pieces.append(own)
        else:
            groups.setdefault(_section_key(source, chunk), []).append((position, chunk))
    for section_id, group in groups.items():
        group.sort(key=lambda item: item[1].start_char or 0)
        pieces.extend(_join(source, section_id, group))
    return pieces


@dataclass(slots=True)
class SectionIndex:
    """Every piece of every source of one answer, and where each chunk landed."""

    pieces: list[Piece]
    chunk_places: dict[tuple[int, int], tuple[Piece, ChunkPlace]]

    @classmethod
    def from_sources(cls, sources: list[Source]) -> SectionIndex:
        """Build the pieces of all sources, in source order."""
        pieces = [piece for source in sources for piece in build_pieces(source)]
        places = {
            (piece.source.index, place.position): (piece, place)
            for piece in pieces
            for place in piece.places
        }
        return cls(pieces, places)
