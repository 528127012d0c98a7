"""The bidirectional maps for frontend highlighting (seed 000): citation -> sentences and
sentence -> citations, keyed by strings as JSON needs."""

from __future__ import annotations

from services.text.extraction import Extracted


def citation_map(extracted: Extracted) -> dict[str, list[tuple[int, str]]]:
    """`str(citation id)` -> `(sentence_index, sentence_text)` of each sentence citing it, in
    text order, each sentence once."""
    found: dict[str, list[tuple[int, str]]] = {}
    sentences = extracted.sentences
    for citation in extracted.citations:
        refs = found.setdefault(str(citation.id), [])
        for k in citation.sentence_indexes or (citation.sentence_index,):
            if not refs or refs[-1][0] < k:
                refs.append((k, sentences[k].text))
    return found


def sentence_map(extracted: Extracted) -> dict[str, list[int]]:
    """`str(sentence index)` -> sorted unique ids of the citations inside it (every sentence,
    an empty list for one without citations)."""
    return {
        str(sentence.index): extracted.sentence_citation_ids(sentence)
        for sentence in extracted.sentences
    }
