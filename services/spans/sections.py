"""Source sections rebuilt from retrieved chunks.

Chunks of one section (same source, same section key) whose `[start_char, start_char +
len(text))` ranges touch or overlap are joined into one `Piece` of section text, so a quote
running across a chunk boundary is found with section offsets. A gap leaves two pieces of the
same section; an overlap whose texts disagree is not joined either.

Section ids: the chunk's `section_id`; else its `href` (EPUB) or `page-N` (PDF); else, for a
source's position-bearing chunks without any of these, the source reference (`source_ref`).
A chunk without `start_char` is its own section: its id is its `chunk_id`, else the generated
`source-<index>-chunk-<position>`, and offsets are within the chunk.

The sources and their chunks are read as their field tables (`source_rows`): the JSON
objects of a record read back without validation, or a validated answer's models.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schemas.answers import Chunk, Source
from schemas.rows import Row, field_tables
from services.text.offsets import Utf16Index


def source_rows(sources: list[Any]) -> list[Row]:
    """The field values of each source (`Source` models or their JSON objects)."""
    return field_tables(Source, sources)


def same_offset(offset: int) -> int:
    """The identity: the UTF-16 offset of a text without characters outside the BMP."""
    return offset


def utf16_offsets(text: str) -> Callable[[int], int]:
    """Code-point to UTF-16 offsets of `text`; the identity (checked in C) when `text` has no
    character outside the Basic Multilingual Plane."""
    if text.isascii() or len(text.encode("utf-16-le")) == 2 * len(text):
        return same_offset
    return Utf16Index(text)


def source_ref(source: Row) -> str:
    """How a source (its `source_rows` entry) is named in `supporting_sources`: `source_id`,
    else `doc_id`, else its index as a string."""
    return source["source_id"] or source["doc_id"] or str(source["index"])


@dataclass(slots=True)
class ChunkPlace:
    """Where one chunk (its field values) lies inside its piece, with its id and text."""

    chunk: Row
    position: int
    start: int
    end: int
    chunk_id: str | None
    text: str
    # The locator container `(type, href, page, section_id, url)`, filled on first use.
    container: tuple[str, str | None, int | None, str | None, str | None] | None = (
        field(default=None, repr=False, compare=False)
    )


@dataclass(slots=True)
class Piece:
    """Contiguous known text of one section (of `source`, its `source_rows` entry): one
    chunk or several joined ones."""

    source: Row
    source_index: int
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

    def utf16_span(self, start: int, end: int) -> tuple[int | None, int | None]:
        """UTF-16 section offsets of piece `[start, end)`, when the prefix is known."""
        if self.section_start:
            return None, None
        convert = self._utf16
        if convert is None:
            convert = self._utf16 = utf16_offsets(self.text)
        if convert is same_offset:
            return start, end
        return convert(start), convert(end)


def _section_key(source: Row, chunk: Row) -> str:
    if chunk["href"]:
        return chunk["href"]
    if chunk["page"] is not None:
        return f"page-{chunk['page']}"
    return source_ref(source)


def _place(chunk: Row, position: int, start: int) -> ChunkPlace:
    text = chunk["text"]
    return ChunkPlace(chunk, position, start, start + len(text), chunk["chunk_id"], text)


def _join(source: Row, section_id: str, group: list[tuple[int, int, Row]]) -> list[Piece]:
    """Join chunks of one section, as `(start_char, position, chunk)` sorted by start, into
    pieces."""
    pieces: list[Piece] = []
    current: Piece | None = None
    index = source["index"]
    for start, position, chunk in group:
        if current is not None:
            text = chunk["text"]
            end = current.section_start + len(current.text)
            local = start - current.section_start
            overlap = current.text[local:]
            if start <= end and (text.startswith(overlap) or overlap.startswith(text)):
                if len(text) > len(overlap):
                    current.text += text[len(overlap) :]
                current.places.append(_place(chunk, position, local))
                continue
        place = _place(chunk, position, 0)
        current = Piece(source, index, section_id, start, place.text, [place])
        pieces.append(current)
    return pieces


def build_pieces(source: Row) -> list[Piece]:
    """The pieces of one source (its `source_rows` entry), sections in order of first
    appearance."""
    groups: dict[str, list[tuple[int, int, Row]]] = {}
    pieces: list[Piece] = []
    index = source["index"]
    for position, chunk in enumerate(field_tables(Chunk, source["chunks"])):
        text = chunk["text"]
        if not text:
            continue
        start = chunk["start_char"]
        if start is None:
            place = _place(chunk, position, 0)
            section_id = place.chunk_id or f"source-{index}-chunk-{position}"
            pieces.append(Piece(source, index, section_id, 0, text, [place]))
        else:
            key = chunk["section_id"] or _section_key(source, chunk)
            groups.setdefault(key, []).append((start, position, chunk))
    for section_id, group in groups.items():
        group.sort(key=_start_char)
        pieces += _join(source, section_id, group)
    return pieces


def _start_char(item: tuple[int, int, Row]) -> int:
    return item[0]


@dataclass(slots=True)
class SectionIndex:
    """Every piece of every source of one answer, where each chunk landed, and the sources'
    field values (`source_rows`)."""

    pieces: list[Piece]
    chunk_places: dict[tuple[int, int], tuple[Piece, ChunkPlace]]
    sources: list[Row]

    @classmethod
    def from_sources(cls, sources: list[Any]) -> SectionIndex:
        """Build the pieces of all sources (`Source` models or their JSON objects), in
        source order."""
        found = source_rows(sources)
        pieces = [piece for source in found for piece in build_pieces(source)]
        places = {
            (piece.source_index, place.position): (piece, place)
            for piece in pieces
            for place in piece.places
        }
        return cls(pieces, places, found)
