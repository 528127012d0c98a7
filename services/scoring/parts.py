"""The three parts of a source's score, each in [0, 1]."""

from __future__ import annotations

import math
from collections.abc import Sequence

from schemas.rows import Row
from services.text.lexical import TextTerms, bm25_of_parts, text_terms


def retriever_norms(sources: Sequence[Row]) -> list[float | None]:
    """The retriever's scores min-max normalised over this answer's sources (their field
    values).

    A source without a (finite) score gets None; when every score is equal (or there is only
    one), each scored source gets 1.0: none is worse than the retriever's best.
    """
    scores = [
        score if (score := s["score"]) is not None and math.isfinite(score) else None
        for s in sources
    ]
    known = [score for score in scores if score is not None]
    if not known:
        return scores
    low, high = min(known), max(known)
    if high == low:
        return [None if score is None else 1.0 for score in scores]
    if not math.isfinite(high - low):  # e.g. -1e308 .. 1e308: halve to stay finite
        scores = [None if score is None else score / 2 for score in scores]
        low, high = low / 2, high / 2
    span = high - low
    return [None if score is None else (score - low) / span for score in scores]


def lexical_relevance(
    query: str | None, documents: Sequence[Sequence[TextTerms]]
) -> list[float] | None:
    """BM25 of each source (the statistics of its texts) for the query, divided by the best
    source's BM25 (so 1.0 is the best lexical match of this answer, 0.0 shares no query term).
    None when the query has no content term (no query, or only stopwords): the part is then
    left out."""
    terms = text_terms(query) if query else set()
    if not terms:
        return None
    scores = bm25_of_parts(terms, documents)
    best = max(scores, default=0.0)
    if best <= 0.0:
        return [0.0] * len(scores)
    return [score / best for score in scores]


def support(sentences: Sequence[set[str] | None], chunks: Sequence[frozenset[str]]) -> float:
    """How well a source's chunks (their content terms) cover the sentences that cite it: the
    mean, over citing sentences with content terms, of the largest share of the sentence's
    terms that one chunk contains. 0.0 when not cited (or without chunks); None and empty
    sentences are skipped."""
    total = 0.0
    counted = 0
    for terms in sentences:
        if terms:
            shared = 0  # a plain loop: twice as fast as max(map(...), default=0) here
            for other in chunks:
                common = len(terms & other)
                if common > shared:  # noqa: PLR1730 (a call per chunk costs more)
                    shared = common
            total += shared / len(terms)
            counted += 1
    return total / counted if counted else 0.0
