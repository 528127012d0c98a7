"""Clickable citation links (seed 001): each supporting passage with its locator.

A passage is located in its chunk (`chunk_position`, checked against `chunk_id`) by exact
search, then in its source's other chunks, then by normalised search; the locator's `exact`
is the source's own text there. A passage that cannot be located keeps a locator built from
its chunk with the passage as `exact` and no context; one whose source or chunk is unknown
has no locator.
"""

from __future__ import annotations

from schemas.citations import AnswerCited
from schemas.construct import maker
from schemas.rows import Row, row, rows
from schemas.spans import Link, Locator
from services.spans.locators import Locators, locator, text_quote
from services.spans.search import QuoteFinder
from services.spans.sections import ChunkPlace, Piece, SectionIndex
from services.text.spacing import excerpt

_link = maker(Link)


def _chunk_entry(
    index: SectionIndex, source: Row, position: int, chunk_id: str | None
) -> tuple[Piece, ChunkPlace] | None:
    """The piece and place of a passage's chunk (of `source`, its `index.sources` entry):
    by position, checked against its id."""
    entry = index.chunk_places.get((source["index"], position))
    if entry is not None and chunk_id in (None, entry[1].chunk_id):
        return entry
    if chunk_id is not None:
        for number, chunk in enumerate(source["chunks"]):
            if row(chunk)["chunk_id"] == chunk_id:
                return index.chunk_places.get((source["index"], number))
    return None


def passage_locator(
    index: SectionIndex,
    finder: QuoteFinder,
    locators: Locators,
    source: Row,
    chunk_position: int,
    chunk_id: str | None,
    passage: str,
) -> Locator | None:
    """Where a passage of the chunk at `chunk_position` (named `chunk_id`) of `source` (its
    `index.sources` entry) is, as a locator (see the module docstring)."""
    entry = _chunk_entry(index, source, chunk_position, chunk_id)
    if entry is None:
        return None
    piece, place = entry
    text = passage.strip()
    found = place.text.find(text) if text else -1
    if found != -1:
        start = place.start + found
        return locators.at(piece, place, start, start + len(text))
    number = source["index"]
    for piece_hit, start, end in finder.find(text, (number,)):
        if piece_hit.source_index == number:
            return locators.at(piece_hit, piece_hit.place_at(start), start, end)
    return locator(piece, place, text_quote(text))


def build_links(
    cited: AnswerCited, index: SectionIndex, finder: QuoteFinder, locators: Locators
) -> list[Link]:
    """One link per supporting passage, in the extraction's order (a passage cited
    several times is located once)."""
    sources = {
        source["index"]: (source, source["doc_id"], source["title"])
        for source in index.sources
    }
    # (a score as its model holds it: a JSON integer read as a float)
    scores = {fields["index"]: float(fields["score"]) for fields in rows(cited, "scores")}
    places: dict[tuple[int, int, str | None, str], tuple[Locator | None, str]] = {}
    links: list[Link] = []
    append = links.append
    unknown = (None, None, None)
    for fields in rows(cited.extraction, "passages"):
        source_index, chunk_id, text = (
            fields["source_index"],
            fields["chunk_id"],
            fields["passage"],
        )
        source, doc_id, title = sources.get(source_index, unknown)
        chunk_position = fields["chunk_position"]
        key = (source_index, chunk_position, chunk_id, text)
        place = places.get(key)
        if place is None:
            found = (
                passage_locator(
                    index, finder, locators, source, chunk_position, chunk_id, text
                )
                if source
                else None
            )
            place = places[key] = (found, excerpt(text))
        append(
            _link(
                {
                    "citation_id": fields["citation_id"],
                    "sentence_index": fields["sentence_index"],
                    "source_index": source_index,
                    "doc_id": doc_id,
                    "doc_title": title,
                    "chunk_id": chunk_id,
                    "score": scores.get(source_index, 0.0),
                    "excerpt": place[1],
                    "passage": text,
                    "locator": place[0],
                }
            )
        )
    return links
