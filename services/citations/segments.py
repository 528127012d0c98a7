"""Inline segments (seed 003): the answer cut into consecutive pieces that tile the text, each
ending with the citations that back it (or with a sentence end when nothing is cited)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from schemas.answers import Source
from services.text.extraction import Extracted
from services.text.hits import CitationHit

TRAILING = ".,;:!?)]\"'”’»"


@dataclass(slots=True)
class SegmentPiece:
    """One inline segment: `[start, end)` of the text and the citations that end it."""

    start: int
    end: int
    citations: list[CitationHit] = field(default_factory=list)


def source_ref_id(source: Source) -> str:
    """The id a frontend uses for a source: its source_id, doc_id or URL, else its index."""
    return source.source_id or source.doc_id or source.url or str(source.index)


def segment_pieces(text: str, extracted: Extracted) -> list[SegmentPiece]:
    """Consecutive pieces covering all of `text`: each cluster closes a piece (with the
    punctuation right after it), and so does each sentence end."""
    cuts: dict[int, list[CitationHit]] = {}
    citations = extracted.citations
    for cluster in extracted.clusters:
        end = cluster.end
        while end < len(text) and text[end] in TRAILING:
            end += 1
        cuts.setdefault(end, []).extend(citations[i] for i in cluster.citations)
    for sentence in extracted.sentences:
        cuts.setdefault(sentence.end, [])
    if text:
        cuts.setdefault(len(text), [])
    pieces = []
    start = 0
    for end in sorted(cuts):
        pieces.append(SegmentPiece(start, end, cuts[end]))
        start = end
    return pieces


def piece_source_ids(piece: SegmentPiece, ref_ids: Mapping[int, str]) -> list[str]:
    """The ids (`ref_ids`: source index -> id) of the sources validly cited in `piece`, first
    appearance first."""
    ids: list[str] = []
    for citation in piece.citations:
        index = citation.source_index
        if citation.valid and index is not None and index in ref_ids:
            ref = ref_ids[index]
            if ref not in ids:
                ids.append(ref)
    return ids
