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

from itertools import starmap
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
    size = len(text)
    # The rows hold the hits' fields in order (`rows`).
    citations = list(starmap(CitationHit, carried.citations))
    clusters = list(starmap(ClusterHit, carried.clusters))
    sentences: list[SentenceHit] = []
    for index, (start, end, positions) in enumerate(carried.sentences):
        sentences.append(SentenceHit(index, start, end, text[start:end], positions))
    problems = list(starmap(ProblemHit, carried.problems))
    pages: dict[tuple[int, int], int] = {}
    for sentence, source, page in carried.pages:
        pages[(sentence, source)] = page
    tokens = {int(key): words for key, words in carried.tokens.items()}
    if not (
        _fits(size, citations, clusters, sentences, problems)
        and _below(len(sentences), [sentence for sentence, _ in pages])
        and _below(len(sentences), list(tokens))
        and carried.tokens.keys() == carried.terms.keys()
    ):
        return None
    found = Extracted(text, citations, clusters, sentences, problems, pages)
    found.remember(tokens, {int(key): set(words) for key, words in carried.terms.items()})
    return found


def _fits(
    size: int,
    citations: list[CitationHit],
    clusters: list[ClusterHit],
    sentences: list[SentenceHit],
    problems: list[ProblemHit],
) -> bool:
    """Whether every start and end of the hits is in order within a text of `size`, and
    every position they hold is one of a hit."""
    count = len(citations)
    # A citation's cluster and sentence are 0 when the answer has none (the hits' default).
    in_clusters, in_sentences = max(len(clusters), 1), max(len(sentences), 1)
    for c in citations:
        if not (0 <= c.start <= c.end <= size and 0 <= c.cluster_index < in_clusters
                and 0 <= c.sentence_index < in_sentences):
            return False
        span_start, span_end = c.span_start, c.span_end
        if span_start is None or span_end is None:
            if span_start is not None or span_end is not None:
                return False
        elif not 0 <= span_start <= span_end <= size:
            return False
        if c.sentence_indexes is not None and not _below(len(sentences), c.sentence_indexes):
            return False
    held: list[int] = []  # the positions the clusters and sentences hold (checked at once)
    for k in clusters:
        if not 0 <= k.start <= k.end <= size:
            return False
        held += k.citations
    for s in sentences:
        if not 0 <= s.start <= s.end <= size:
            return False
        held += s.citations
    return _below(count, held) and all(0 <= p.start <= p.end <= size for p in problems)


def _below(count: int, positions: list[int]) -> bool:
    """Whether every one of `positions` is a position in a list of `count`."""
    for position in positions:
        if not 0 <= position < count:
            return False
    return True
