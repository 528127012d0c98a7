"""The citation extraction as the scoring stage carries it to the citations stage, which
would otherwise run it again: `rows` writes an `Extracted` as the compact rows of
`schemas.scoring.CarriedExtraction`, `extracted_from` reads them back.

The rows' types are checked where every field's are: validating a record not written by a
stage of this pipeline. Reading them back checks what types cannot say, that they fit the
answer (every offset inside its text, every position inside its list); rows that do not fit
give None and the caller extracts the citations itself: a bad record costs the work it was
meant to save, never a wrong result.
"""

from __future__ import annotations

from typing import Any

from schemas.scoring import CarriedExtraction
from services.text.extraction import Extracted
from services.text.hits import CitationHit, ClusterHit, ProblemHit, SentenceHit


def rows(found: Extracted) -> dict[str, Any]:
    """The `CarriedExtraction` field values of `found`, with the tokens and terms of the
    sentences it has worked out (rows as tuples, as validation makes them; terms sorted:
    the same bytes in every process)."""
    tokens, terms = found.remembered()
    return {
        "citations": [
            (c.id, c.marker, c.start, c.end, c.source_index, c.valid, c.problem,
             c.cluster_index, c.sentence_index, c.page, c.span_start, c.span_end,
             c.sentence_indexes)
            for c in found.citations
        ],
        "clusters": [(k.start, k.end, k.marker, k.citations) for k in found.clusters],
        "sentences": [(s.start, s.end, s.citations) for s in found.sentences],
        "problems": [(p.code, p.message, p.start, p.end) for p in found.problems],
        "pages": [(sentence, source, page) for (sentence, source), page in found.pages.items()],
        "tokens": {str(index): words for index, words in tokens.items()},
        "terms": {str(index): sorted(found_terms) for index, found_terms in terms.items()},
    }


def extracted_from(text: str, carried: CarriedExtraction) -> Extracted | None:
    """The extraction `carried` describes for an answer of `text`; None when it does not
    fit that text."""
    citations = [CitationHit(*row) for row in carried.citations]
    clusters = [ClusterHit(*row) for row in carried.clusters]
    sentences = [
        SentenceHit(index, start, end, text[start:end], positions)
        for index, (start, end, positions) in enumerate(carried.sentences)
    ]
    problems = [ProblemHit(*row) for row in carried.problems]
    tokens = {int(key): words for key, words in carried.tokens.items()}
    if (
        not _inside(len(text), citations, clusters, sentences, problems)
        or not _below(len(citations), [k.citations for k in clusters])
        or not _below(len(citations), [s.citations for s in sentences])
        # A citation's cluster and sentence are 0 when the answer has none (hits' default).
        or not _below(max(len(clusters), 1), [[c.cluster_index for c in citations]])
        or not _below(max(len(sentences), 1), [[c.sentence_index for c in citations]])
        or not _below(len(sentences), [c.sentence_indexes or [] for c in citations])
        or not _below(len(sentences), [[row[0] for row in carried.pages], list(tokens)])
        or carried.tokens.keys() != carried.terms.keys()
    ):
        return None
    found = Extracted(
        text, citations, clusters, sentences, problems,
        {(sentence, source): page for sentence, source, page in carried.pages},
    )
    found.remember(tokens, {int(key): set(words) for key, words in carried.terms.items()})
    return found


def _inside(
    size: int,
    citations: list[CitationHit],
    clusters: list[ClusterHit],
    sentences: list[SentenceHit],
    problems: list[ProblemHit],
) -> bool:
    """Whether every start and end of the hits is in order and within a text of `size`."""
    spans: list[tuple[int | None, int | None]] = [(c.start, c.end) for c in citations]
    spans += [(c.span_start, c.span_end) for c in citations if c.span_start is not None]
    spans += [(k.start, k.end) for k in clusters]
    spans += [(s.start, s.end) for s in sentences]
    spans += [(p.start, p.end) for p in problems]
    return all(
        start is not None and end is not None and 0 <= start <= end <= size
        for start, end in spans
    ) and all(c.span_end is None for c in citations if c.span_start is None)


def _below(count: int, lists: list[list[int]]) -> bool:
    """Whether every position in `lists` is a position in a list of `count`."""
    return all(not values or (min(values) >= 0 and max(values) < count) for values in lists)
