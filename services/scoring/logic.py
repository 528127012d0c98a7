"""`score_answer`: every source of an accepted answer scored, ranked and explained (SPEC §4.2).

`passage_sources` holds the eligible sources that the answer actually cites, best first, capped
at `max_citations`: supporting passages are only ever looked up for cited sources, so an
uncited source would only take a slot from a cited one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Protocol

from schemas.answers import AnswerAccepted, AnswerSubmitted
from schemas.construct import maker
from schemas.scoring import AnswerScored, ScoreExplanation, SourceScore
from services.citations.extract import Extracted, extract
from services.scoring.combine import Plan, cited_phrase, plan
from services.scoring.parts import lexical_relevance, retriever_norms, support
from services.text.lexical import analyse, span_terms


class _Citation(Protocol):
    source_index: int | None
    valid: bool
    sentence_index: int


class _Span(Protocol):
    start: int
    end: int


class _Sentence(_Span, Protocol):
    index: int


@dataclass(frozen=True)
class Citing:
    """What the answer's valid citations say about its sources."""

    counts: dict[int, int] = field(
        default_factory=dict
    )  # source index -> valid citations
    sentences: dict[int, list[int]] = field(
        default_factory=dict
    )  # source -> citing sentences
    sentence_terms: dict[int, set[str]] = field(
        default_factory=dict
    )  # content terms, no markers


def without_markers(text: str, markers: Iterable[_Span]) -> str:
    """The text with every citation marker blanked out (offsets unchanged)."""
    pieces: list[str] = []
    done = 0
    for marker in sorted(markers, key=attrgetter("start")):
        if marker.start >= done:
            pieces.append(text[done : marker.start])
            pieces.append(" " * (marker.end - marker.start))
            done = marker.end
    pieces.append(text[done:])
    return "".join(pieces)


def citing_from(
    text: str,
    citations: Iterable[_Citation],
    sentences: Iterable[_Sentence],
    markers: Iterable[_Span],
) -> Citing:
    """Group the valid citations by source: how many, and which sentences, with the content
    terms of each citing sentence (markers removed)."""
    counts: dict[int, int] = {}
    by_source: dict[int, list[int]] = {}
    for citation in citations:
        index = citation.source_index
        if not citation.valid or index is None:
            continue
        counts[index] = counts.get(index, 0) + 1
        cited_by = by_source.setdefault(index, [])
        if citation.sentence_index not in cited_by:
            cited_by.append(citation.sentence_index)
    wanted = {i for indexes in by_source.values() for i in indexes}
    spans = {s.index: (s.start, s.end) for s in sentences if s.index in wanted}
    clean = without_markers(text, markers) if spans else text
    terms = dict(zip(spans, span_terms(clean, spans.values())))
    return Citing(counts, by_source, terms)


_make_explanation = maker(ScoreExplanation)
_make_row = maker(SourceScore)
_make_scored = maker(AnswerScored)


def score_sources(answer: AnswerSubmitted, citing: Citing) -> AnswerScored:
    """Score, rank and explain every source given what the citations say."""
    sources = answer.sources
    options = answer.effective_options()
    threshold = options.min_citation_score
    chunks = [[analyse(chunk.text) for chunk in source.chunks] for source in sources]
    retriever = retriever_norms(sources)
    lexical = lexical_relevance(
        answer.query,
        [
            (*stats, analyse(source.title)) if source.title else stats
            for source, stats in zip(sources, chunks)
        ],
    )
    sentence_terms = citing.sentence_terms
    cited_sentences = citing.sentences
    plans: dict[bool, Plan] = {}  # by whether the source has a retriever part
    names = ("lexical", "support") if lexical is not None else ("support",)

    combined: list[tuple[float, Plan, tuple[float, ...]]] = []
    for position, source in enumerate(sources):
        cited_by = cited_sentences.get(source.index)
        values: tuple[float, ...] = (
            support(
                list(map(sentence_terms.get, cited_by)),
                [stats.terms for stats in chunks[position]],
            )
            if cited_by
            else 0.0,
        )
        if lexical is not None:
            values = (lexical[position], *values)
        norm = retriever[position]
        if norm is not None:
            values = (norm, *values)
        known = norm is not None
        chosen = plans.get(known)
        if chosen is None:
            chosen = plans[known] = plan(("retriever", *names) if known else names, threshold)
        combined.append((chosen.score(values), chosen, values))

    order = [
        position
        for _, _, position in sorted(
            zip([-score for score, _, _ in combined], [s.index for s in sources], range(len(sources)))
        )
    ]
    ranks = [0] * len(sources)
    for rank, position in enumerate(order, start=1):
        ranks[position] = rank
    counts = citing.counts
    of = len(sources)
    # Every value below is already of its field's type and within its bounds (scores in
    # [0, 1], ranks from 1), so the models are built without validation; a test checks that
    # validating the output changes nothing.
    rows: list[SourceScore] = []
    for position, source in enumerate(sources):
        score, chosen, values = combined[position]
        index = source.index
        count = counts.get(index, 0)
        eligible = score >= threshold
        rank = ranks[position]
        parts = dict(zip(chosen.names, values))
        text = chosen.template % (
            index,
            rank,
            of,
            score,
            *values,
            cited_phrase(count),
            "eligible" if eligible else "not eligible",
        )
        rows.append(
            _make_row(
                {
                    "index": index,
                    "retriever_score": source.score,
                    "retriever_norm": retriever[position],
                    "lexical": parts.get("lexical", 0.0),
                    "support": values[-1],
                    "score": score,
                    "rank": rank,
                    "eligible": eligible,
                    "cited": count > 0,
                    "citation_count": count,
                    "explanation": _make_explanation(
                        {"parts": parts, "weights": dict(chosen.weights), "text": text}
                    ),
                }
            )
        )
    passage_sources = [
        row.index for row in map(rows.__getitem__, order) if row.eligible and row.cited
    ]
    return _make_scored(
        {
            "answer": answer,
            "scores": rows,
            "passage_sources": passage_sources[: options.max_citations],
        }
    )


def score_answer(accepted: AnswerAccepted, found: Extracted | None = None) -> AnswerScored:
    """Score an accepted answer: its citations come from the shared citation extractor
    (`found`, when the caller already ran it on this answer)."""
    answer = accepted.answer
    if found is None:
        found = extract(answer.text, answer.sources)
    citing = citing_from(answer.text, found.citations, found.sentences, found.clusters)
    return score_sources(answer, citing)
