"""`cite_answer`: the citations stage's pure logic, scored answer in, cited out.

Every value here is built from validated input, so the event models are assembled without
re-validation (`services.citations.build`).

Hot-path notes (about 380 models per 1,000-word answer): each list is built in one pass over
the extraction, straight into model dicts (no intermediate records), UTF-16 offsets are only
computed when the text has astral characters, and a sentence's citation ids are computed once
for the sentence and the sentence map.
"""

from __future__ import annotations

from collections.abc import Callable

from schemas.answers import AnswerSubmitted
from schemas.base import Problem, Span
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
from schemas.construct import maker
from schemas.scoring import AnswerScored
from schemas.trusted import passed_on
from services.citations.coverage import coverage
from services.citations.passages import PassageFinder
from services.citations.references import references
from services.citations.rivals import add_rivals
from services.citations.segments import TRAILING, source_ref_id
from services.text.carry import extracted_from
from services.text.extraction import Extracted, extract_answer
from services.text.offsets import Utf16Index

_answer_cited = maker(AnswerCited)
_extraction = maker(CitationExtraction)
_citation = maker(Citation)
_cluster = maker(Cluster)
_span = maker(Span)
_sentence = maker(Sentence)
_sentence_ref = maker(SentenceRef)
_segment = maker(Segment)
_segment_citation = maker(SegmentCitation)
_coverage_model = maker(Coverage)
_source_coverage = maker(SourceCoverage)
_passage = maker(SupportingPassage)
_problem = maker(Problem)


def cite_answer(scored: AnswerScored, extracted: Extracted | None = None) -> AnswerCited:
    """Extract the citations of a scored answer (unless the caller already did: `extracted`,
    or the scoring stage did and carried them in the event) and everything built on them."""
    answer = scored.answer
    if extracted is None:
        carried = scored.carried
        if carried is not None:
            extracted = extracted_from(answer.text, carried)
        if extracted is None:
            extracted = extract_answer(answer)
    passage_sources = scored.passage_sources  # (a field read of a lazy record: once)
    return _answer_cited(
        {
            "answer": answer,
            "scores": passed_on(scored, "scores"),
            "passage_sources": passage_sources,
            "extraction": build_extraction(answer, extracted, passage_sources),
        }
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
    u16: Callable[[int], int] | None = _utf16(answer.text)
    if u16 is int:
        u16 = None  # offsets are used as they are
    hits = extracted.citations
    citations = []
    citation_map: dict[str, list[SentenceRef]] = {}
    sentences = extracted.sentences
    for c in hits:
        start, end, sentence_index = c.start, c.end, c.sentence_index
        span_start, span_end = c.span_start, c.span_end
        citations.append(
            _citation(
                {
                    "start": start,
                    "end": end,
                    "start_utf16": start if u16 is None else u16(start),
                    "end_utf16": end if u16 is None else u16(end),
                    "id": c.id,
                    "marker": c.marker,
                    "source_index": c.source_index,
                    "valid": c.valid,
                    "problem": c.problem,
                    "cluster_index": c.cluster_index,
                    "sentence_index": sentence_index,
                    "page": c.page,
                    "span": None
                    if span_start is None or span_end is None
                    else _span(
                        {
                            "start": span_start,
                            "end": span_end,
                            "start_utf16": span_start if u16 is None else u16(span_start),
                            "end_utf16": span_end if u16 is None else u16(span_end),
                        }
                    ),
                }
            )
        )
        key = str(c.id)
        refs = citation_map.get(key)
        if refs is None:
            refs = citation_map[key] = []
        elif c.sentence_indexes is None and refs[-1].__dict__["sentence_index"] == sentence_index:
            continue
        # A span citation may reach several sentences; a marker is in one.
        for reached in c.sentence_indexes or (sentence_index,):
            if refs and refs[-1].__dict__["sentence_index"] >= reached:
                continue
            refs.append(
                _sentence_ref(
                    {"sentence_index": reached, "sentence_text": sentences[reached].text}
                )
            )
    clusters = []
    for k in extracted.clusters:
        start, end = k.start, k.end
        clusters.append(
            _cluster(
                {
                    "start": start,
                    "end": end,
                    "start_utf16": start if u16 is None else u16(start),
                    "end_utf16": end if u16 is None else u16(end),
                    "marker": k.marker,
                    "citation_ids": [hits[i].id for i in k.citations],
                }
            )
        )
    sentence_models = []
    sentence_map: dict[str, list[int]] = {}
    for s in sentences:
        start, end = s.start, s.end
        inside = s.citations
        if len(inside) == 1:
            ids = [hits[inside[0]].id]
            sentence_map[str(s.index)] = [ids[0]]
        elif inside:
            ids = sorted({hits[i].id for i in inside})
            sentence_map[str(s.index)] = ids.copy()
        else:
            sentence_map[str(s.index)] = []
            ids = []
        sentence_models.append(
            _sentence(
                {
                    "start": start,
                    "end": end,
                    "start_utf16": start if u16 is None else u16(start),
                    "end_utf16": end if u16 is None else u16(end),
                    "index": s.index,
                    "text": s.text,
                    "citation_ids": ids,
                }
            )
        )
    return _extraction(
        {
            "citations": citations,
            "clusters": clusters,
            "sentences": sentence_models,
            "citation_map": citation_map,
            "sentence_map": sentence_map,
            "segments": _segments(answer, extracted, u16),
            "coverage": _coverage(answer, extracted),
            "references": references(answer.sources),
            "passages": _passages(answer, extracted, passage_sources),
            "problems": [
                _problem(
                    {
                        "code": p.code,
                        "message": p.message,
                        "start": p.start,
                        "end": p.end,
                    }
                )
                for p in extracted.problems
            ],
        }
    )


def _segments(
    answer: AnswerSubmitted, extracted: Extracted, u16: Callable[[int], int] | None
) -> list[Segment]:
    """Inline segments with their citations and source ids: consecutive pieces tiling the
    text, each cluster closing a piece (with the punctuation right after it), and so does each
    sentence end (`services.citations.segments.segment_pieces`, built in one pass here: each
    cluster's citation models are made as its piece is found)."""
    text = answer.text
    size = len(text)
    about: dict[int | None, tuple[str | None, str | None]] = {
        source.index: (source.kind, source_ref_id(source)) for source in answer.sources
    }
    unknown: tuple[str | None, str | None] = (None, None)
    hits = extracted.citations
    cuts: dict[int, tuple[list[SegmentCitation], list[str]]] = {}
    for cluster in extracted.clusters:
        end = cluster.end
        while end < size and text[end] in TRAILING:
            end += 1
        piece = cuts.get(end)
        if piece is None:
            piece = cuts[end] = ([], [])
        cited, source_ids = piece
        for i in cluster.citations:
            c = hits[i]
            index = c.source_index
            kind, ref = about.get(index, unknown)
            cited.append(
                _segment_citation(
                    {
                        "id": c.id,
                        "marker": c.marker,
                        "start": c.start,
                        "end": c.end,
                        "source_index": index,
                        "source_kind": kind,
                        "source_id": ref,
                        "valid": c.valid,
                    }
                )
            )
            if c.valid and ref is not None and ref not in source_ids:
                source_ids.append(ref)
    stops = set(cuts)
    stops.update([sentence.end for sentence in extracted.sentences])
    if text:
        stops.add(size)
    segments = []
    start = 0
    for end in sorted(stops):
        piece = cuts.get(end)
        cited, source_ids = ([], []) if piece is None else piece
        segments.append(
            _segment(
                {
                    "start": start,
                    "end": end,
                    "start_utf16": start if u16 is None else u16(start),
                    "end_utf16": end if u16 is None else u16(end),
                    "text": text[start:end],
                    "citations": cited,
                    "source_ids": source_ids,
                }
            )
        )
        start = end
    return segments


def _coverage(answer: AnswerSubmitted, extracted: Extracted) -> Coverage:
    """The coverage model of one answer."""
    counts = coverage(extracted, answer.sources)
    return _coverage_model(
        {
            "sentences_total": counts.sentences_total,
            "sentences_cited": counts.sentences_cited,
            "sentence_ratio": counts.sentence_ratio,
            "chars_total": counts.chars_total,
            "chars_cited": counts.chars_cited,
            "char_ratio": counts.char_ratio,
            "per_source": {
                key: _source_coverage({"citations": c, "sentences": s})
                for key, (c, s) in counts.per_source.items()
            },
        }
    )


def _passages(
    answer: AnswerSubmitted, extracted: Extracted, passage_sources: list[int]
) -> list[SupportingPassage]:
    """Supporting passages of the eligible cited sources (score order, capped), with the
    rivals of those whose sentence cites only them and that fall short of support."""
    finder = PassageFinder(extracted, answer.sources, passage_sources)
    values = finder.passages()
    add_rivals(finder, values, answer.sources)
    return list(map(_passage, values))
