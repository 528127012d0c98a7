"""Citation coverage: how much of the answer a valid citation backs (seed 003)."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from schemas.answers import Source
from services.text.extraction import Extracted

_WORDISH = re.compile(r"[^\W_]")


@dataclass(slots=True)
class CoverageCounts:
    """Sentences and characters in total and backed by a valid citation; per-source counts.

    Only sentences holding a letter or digit count; characters exclude the markers.
    """

    sentences_total: int = 0
    sentences_cited: int = 0
    chars_total: int = 0
    chars_cited: int = 0
    per_source: dict[str, tuple[int, int]] = field(default_factory=dict)  # citations, sentences

    @property
    def sentence_ratio(self) -> float:
        """Share of sentences backed by a valid citation."""
        return self.sentences_cited / self.sentences_total if self.sentences_total else 0.0

    @property
    def char_ratio(self) -> float:
        """Share of characters in sentences backed by a valid citation."""
        return self.chars_cited / self.chars_total if self.chars_total else 0.0


def coverage(extracted: Extracted, sources: Sequence[Source]) -> CoverageCounts:
    """Coverage of one answer; every source appears in `per_source`, cited or not."""
    counts = CoverageCounts()
    citations, clusters = extracted.citations, extracted.clusters
    per_citations = {source.index: 0 for source in sources}
    per_sentences = dict(per_citations)
    wordish = _WORDISH.search
    sentences_total = sentences_cited = chars_total = chars_cited = 0
    for sentence in extracted.sentences:
        # A sentence starting with a letter or digit needs no search (`isalnum` is `[^\W_]`).
        if not (sentence.text[:1].isalnum() or wordish(sentence.text)):
            continue
        sentences_total += 1
        inside = sentence.citations
        if not inside:
            chars_total += sentence.end - sentence.start
            continue
        if len(inside) == 1:  # the common case, without the sets
            citation = citations[inside[0]]
            cluster = clusters[citation.cluster_index]
            chars = sentence.end - sentence.start - (cluster.end - cluster.start)
            index = citation.source_index
            cited: Collection[int] = () if not citation.valid or index is None else (index,)
        else:
            marker_chars = 0
            for k in {citations[i].cluster_index for i in inside}:
                marker_chars += clusters[k].end - clusters[k].start
            chars = sentence.end - sentence.start - marker_chars
            cited = {
                index
                for i in inside
                if citations[i].valid and (index := citations[i].source_index) is not None
            }
        chars_total += chars
        if cited:
            sentences_cited += 1
            chars_cited += chars
        for index in cited:
            per_sentences[index] = per_sentences.get(index, 0) + 1
    for citation in citations:
        if citation.valid and citation.source_index is not None:
            per_citations[citation.source_index] = per_citations.get(citation.source_index, 0) + 1
    counts.sentences_total, counts.sentences_cited = sentences_total, sentences_cited
    counts.chars_total, counts.chars_cited = chars_total, chars_cited
    counts.per_source = {
        str(index): (per_citations[index], per_sentences.get(index, 0)) for index in per_citations
    }
    return counts
