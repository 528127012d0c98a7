"""`score_answer`: every source of an accepted answer scored, ranked and explained.

`passage_sources` holds the eligible sources that the answer actually cites, best first, capped
at `max_citations`: supporting passages are only ever looked up for cited sources, so an
uncited source would only take a slot from a cited one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from schemas.answers import (
    AnswerAccepted,
    AnswerOptions,
    AnswerSubmitted,
    AnswerUnitIn,
    Chunk,
    Source,
)
from schemas.construct import maker
from schemas.rows import field_tables
from schemas.scoring import AnswerScored, CarriedExtraction, ScoreExplanation, SourceScore
from schemas.trusted import passed_on
from services.scoring.combine import Plan, cited_phrase, plan
from services.scoring.parts import lexical_relevance, retriever_norms, support
from services.text.carry import rows
from services.text.extraction import Extracted, extract, extract_answer
from services.text.footnotes import footnote_definitions
from services.text.lexical import analyse


@dataclass(frozen=True)
class Citing:
    """What the answer's valid citations say about its sources."""

    counts: dict[int, int] = field(default_factory=dict)  # source index -> valid citations
    sentences: dict[int, list[int]] = field(default_factory=dict)  # source -> citing sentences
    sentence_terms: dict[int, set[str]] = field(default_factory=dict)  # markers left out


def citing_from(found: Extracted) -> Citing:
    """Group the valid citations by source: how many, and which sentences, with the content
    terms of each citing sentence."""
    counts: dict[int, int] = {}
    for citation in found.citations:
        index = citation.source_index
        if citation.valid and index is not None:
            counts[index] = counts.get(index, 0) + 1
    by_source = found.sentences_by_source()
    wanted = {i for indexes in by_source.values() for i in indexes}
    return Citing(counts, by_source, found.sentence_terms(wanted) if wanted else {})


_make_explanation = maker(ScoreExplanation)
_make_row = maker(SourceScore)
_make_scored = maker(AnswerScored)
_make_carried = maker(CarriedExtraction)
_DEFAULT_OPTIONS = vars(AnswerOptions())


def score_sources(
    answer: Any, citing: Citing, carried: CarriedExtraction | None = None
) -> AnswerScored:
    """Score, rank and explain every source given what the citations say (`carried`: the
    extraction they come from, for the citations stage). `answer` is an `AnswerSubmitted`
    or, read back, its JSON object: its fields are read as rows (`schemas.rows`) and it is
    passed on as it is."""
    (fields,) = field_tables(AnswerSubmitted, [answer])
    sources = field_tables(Source, fields["sources"])
    given = fields["options"]
    options = field_tables(AnswerOptions, [given])[0] if given is not None else _DEFAULT_OPTIONS
    threshold = options["min_citation_score"]
    chunks = [
        [analyse(chunk["text"]) for chunk in field_tables(Chunk, source["chunks"])]
        for source in sources
    ]
    retriever = retriever_norms(sources)
    lexical = lexical_relevance(
        fields["query"],
        [
            (*stats, analyse(source["title"])) if source["title"] else stats
            for source, stats in zip(sources, chunks)
        ],
    )
    sentence_terms = citing.sentence_terms
    cited_sentences = citing.sentences
    plans: dict[bool, Plan] = {}  # by whether the source has a retriever part
    names = ("lexical", "support") if lexical is not None else ("support",)

    combined: list[tuple[float, Plan, tuple[float, ...]]] = []
    for position, source in enumerate(sources):
        cited_by = cited_sentences.get(source["index"])
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
            zip([-score for score, _, _ in combined], [s["index"] for s in sources], range(len(sources)))
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
        index = source["index"]
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
                    "retriever_score": source["score"],
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
            "passage_sources": passage_sources[: options["max_citations"]],
            "carried": carried,
        }
    )


def score_answer(accepted: AnswerAccepted, found: Extracted | None = None) -> AnswerScored:
    """Score an accepted answer: its citations come from the shared citation extractor
    (`found`, when the caller already ran it on this answer and hands it on itself).
    Otherwise (a stage process) the extraction made here is carried in the event, for the
    citations stage.

    The answer is read as its field values and written out again as it came (a record read
    back holds its JSON: making it models costs more than scoring reads), but for one with
    span citations or footnote definitions, whose checks read its sources as models."""
    if found is not None:
        return score_sources(accepted.answer, citing_from(found))
    answer = passed_on(accepted, "answer")
    (fields,) = field_tables(AnswerSubmitted, [answer])
    text = fields["text"]
    if fields["citations"] or footnote_definitions(text):
        answer = accepted.answer
        found = extract_answer(answer)
    else:
        if fields["answer_units"]:  # (given their defaults, as models would be: written out)
            field_tables(AnswerUnitIn, fields["answer_units"])
        sources = field_tables(Source, fields["sources"])
        found = extract(text, sources, None, fields["language"])
    return score_sources(answer, citing_from(found), _make_carried(rows(found)))
