"""`cite_answer`: the citations stage's pure logic (SPEC §4.3), scored answer in, cited out.

Every value here is built from validated input, so the event models are assembled without
re-validation (`services.citations.build.construct`).
"""

from __future__ import annotations

from collections.abc import Callable

from schemas.answers import AnswerSubmitted
from schemas.base import Problem
from schemas.citations import (
    AnswerCited,
    Citation,
    CitationExtraction,
    Cluster,
    Coverage,
    Segment,
    SegmentCitation,
    Sentence,
    SentenceRef,
    SourceCoverage,
    SupportingPassage,
)
from schemas.scoring import AnswerScored
from services.citations.build import construct
from services.citations.coverage import coverage
from services.citations.extract import Extracted, extract
from services.citations.maps import citation_map, sentence_map
from services.citations.passages import supporting_passages
from services.citations.references import references
from services.citations.segments import piece_source_ids, segment_pieces, source_ref_id
from services.text.offsets import Utf16Index


def cite_answer(scored: AnswerScored) -> AnswerCited:
    """Extract the citations of a scored answer and everything built on them."""
    answer = scored.answer
    extracted = extract(answer.text, answer.sources)
    return construct(
        AnswerCited,
        {
            "answer": answer,
            "scores": scored.scores,
            "passage_sources": scored.passage_sources,
            "extraction": build_extraction(answer, extracted, scored.passage_sources),
        },
    )


def _utf16(text: str) -> Callable[[int], int]:
    """Code point -> UTF-16 offset for `text` (the identity when nothing is astral)."""
    if text.isascii() or len(text.encode("utf-16-le")) == 2 * len(text):
        return int
    return Utf16Index(text)


def build_extraction(
    answer: AnswerSubmitted, extracted: Extracted, passage_sources: list[int]
) -> CitationExtraction:
    """The `CitationExtraction` event payload of one answer."""
    u16 = _utf16(answer.text)
    hits = extracted.citations
    sentence_ids = sentence_map(extracted)
    return construct(
        CitationExtraction,
        {
            "citations": [
                construct(
                    Citation,
                    {
                        "start": c.start,
                        "end": c.end,
                        "start_utf16": u16(c.start),
                        "end_utf16": u16(c.end),
                        "id": c.id,
                        "marker": c.marker,
                        "source_index": c.source_index,
                        "valid": c.valid,
                        "problem": c.problem,
                        "cluster_index": c.cluster_index,
                        "sentence_index": c.sentence_index,
                    },
                )
                for c in hits
            ],
            "clusters": [
                construct(
                    Cluster,
                    {
                        "start": k.start,
                        "end": k.end,
                        "start_utf16": u16(k.start),
                        "end_utf16": u16(k.end),
                        "marker": k.marker,
                        "citation_ids": [hits[i].id for i in k.citations],
                    },
                )
                for k in extracted.clusters
            ],
            "sentences": [
                construct(
                    Sentence,
                    {
                        "start": s.start,
                        "end": s.end,
                        "start_utf16": u16(s.start),
                        "end_utf16": u16(s.end),
                        "index": s.index,
                        "text": s.text,
                        "citation_ids": list(sentence_ids[str(s.index)]),
                    },
                )
                for s in extracted.sentences
            ],
            "citation_map": {
                key: [
                    construct(SentenceRef, {"sentence_index": i, "sentence_text": t})
                    for i, t in refs
                ]
                for key, refs in citation_map(extracted).items()
            },
            "sentence_map": sentence_ids,
            "segments": _segments(answer, extracted, u16),
            "coverage": _coverage(answer, extracted),
            "references": references(answer.sources),
            "passages": _passages(answer, extracted, passage_sources),
            "problems": [
                construct(
                    Problem,
                    {
                        "code": p.code,
                        "message": p.message,
                        "start": p.start,
                        "end": p.end,
                    },
                )
                for p in extracted.problems
            ],
        },
    )


def _segments(
    answer: AnswerSubmitted, extracted: Extracted, u16: Callable[[int], int]
) -> list[Segment]:
    """Inline segments with their citations and source ids."""
    text = answer.text
    kinds = {source.index: source.kind for source in answer.sources}
    ref_ids = {source.index: source_ref_id(source) for source in answer.sources}
    segments = []
    for piece in segment_pieces(text, extracted):
        cited = [
            construct(
                SegmentCitation,
                {
                    "id": c.id,
                    "marker": c.marker,
                    "start": c.start,
                    "end": c.end,
                    "source_index": c.source_index,
                    "source_kind": kinds.get(c.source_index),
                    "source_id": ref_ids.get(c.source_index),
                    "valid": c.valid,
                },
            )
            for c in piece.citations
        ]
        segments.append(
            construct(
                Segment,
                {
                    "start": piece.start,
                    "end": piece.end,
                    "start_utf16": u16(piece.start),
                    "end_utf16": u16(piece.end),
                    "text": text[piece.start : piece.end],
                    "citations": cited,
                    "source_ids": piece_source_ids(piece, ref_ids),
                },
            )
        )
    return segments


def _coverage(answer: AnswerSubmitted, extracted: Extracted) -> Coverage:
    """The coverage model of one answer."""
    counts = coverage(extracted, answer.sources)
    return construct(
        Coverage,
        {
            "sentences_total": counts.sentences_total,
            "sentences_cited": counts.sentences_cited,
            "sentence_ratio": counts.sentence_ratio,
            "chars_total": counts.chars_total,
            "chars_cited": counts.chars_cited,
            "char_ratio": counts.char_ratio,
            "per_source": {
                key: construct(SourceCoverage, {"citations": c, "sentences": s})
                for key, (c, s) in counts.per_source.items()
            },
        },
    )


def _passages(
    answer: AnswerSubmitted, extracted: Extracted, passage_sources: list[int]
) -> list[SupportingPassage]:
    """Supporting passages of the eligible cited sources (score order, capped)."""
    return [
        construct(
            SupportingPassage,
            {
                "citation_id": p.source_index,
                "sentence_index": p.sentence_index,
                "source_index": p.source_index,
                "chunk_id": p.chunk.chunk_id,
                "chunk_position": p.chunk_position,
                "section_id": p.section_id,
                "start_char": p.section_start,
                "end_char": p.section_end,
                "passage": p.text,
                "score": round(p.score, 6),
            },
        )
        for p in supporting_passages(answer.text, extracted, answer.sources, passage_sources)
    ]
