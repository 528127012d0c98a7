"""Support verdicts in the spans stage: one per citation, evidence as a span."""

from __future__ import annotations

from services.spans.logic import resolve_answer
from services.verification.judges import LEXICAL
from tests.services.spans.builders import chunk, cited, section_text, source

_PARIS = "Paris is the capital of France. The city hosts the Louvre, the largest art museum."
_LYON = "Lyon is known for its cuisine and its silk industry since 1536."
_SOURCES = [
    source(1, chunk(_PARIS, section_id="s1", start_char=40, chunk_id="c1", page=3)),
    source(2, chunk(_LYON, section_id="s2", start_char=0, chunk_id="c2")),
    source(3, chunk("   ", section_id="s3", start_char=0)),
]
_SENTENCES = [
    "Paris is the capital of France [1].",
    "The largest art museum, the Louvre, is in Paris [1].",
    "Lyon has had a silk industry since 1536 [1][2].",
    "Nobody knows [3].",
    "Madrid is in Spain [9].",
]


def _resolved():
    text = " ".join(_SENTENCES)
    return cited(text, _SOURCES, sentences=_SENTENCES)


def test_every_valid_citation_has_support_and_invalid_ones_none() -> None:
    answer = _resolved()
    resolution = resolve_answer(answer, LEXICAL).resolution
    citations = answer.extraction.citations
    assert len(resolution.support) == len(citations)
    for citation, support in zip(citations, resolution.support, strict=True):
        assert (support is None) == (not citation.valid)
    verdicts = [(c.id, s.verdict, s.judge) for c, s in zip(citations, resolution.support) if s]
    assert verdicts == [
        (1, "supported", "verbatim"),  # the sentence is verbatim in source 1
        (1, "supported", "lexical"),
        (1, "unsupported", "lexical"),
        (2, "supported", "lexical"),
        (3, "unverifiable", "lexical"),
    ]


def test_evidence_is_a_span_of_the_cited_source() -> None:
    answer = _resolved()
    resolution = resolve_answer(answer, LEXICAL).resolution
    for citation, support in zip(answer.extraction.citations, resolution.support):
        if support is None or support.evidence is None:
            continue
        span = support.evidence
        assert span.source_index == citation.source_index
        text = section_text(answer, span.source_index, span.section_id)
        assert text[span.start_char : span.end_char] == span.quote
        assert span.locator is not None and span.locator.selector.exact == span.quote
    museum = resolution.support[1]
    assert museum is not None and museum.evidence is not None
    # the best sentence, widened by the one before it, which adds "Paris"
    assert museum.evidence.quote == _PARIS
    assert (museum.evidence.start_char, museum.evidence.end_char) == (40, 40 + len(_PARIS))
    assert museum.evidence.locator is not None
    assert (museum.evidence.locator.type, museum.evidence.locator.page) == ("pdf_text", 3)


def test_a_wrong_citation_names_the_better_source() -> None:
    resolution = resolve_answer(_resolved(), LEXICAL).resolution
    silk_from_paris = resolution.support[2]
    assert silk_from_paris is not None
    # source 2 is cited in the same sentence: not offered as the better source
    assert silk_from_paris.better_source is None
    answer = cited(
        "Lyon has had a silk industry since 1536 [1].",
        _SOURCES,
        sentences=["Lyon has had a silk industry since 1536 [1]."],
    )
    [support] = resolve_answer(answer, LEXICAL).resolution.support
    assert support is not None and support.better_source == 2
    assert "1536" in support.missing


def test_quality_block() -> None:
    quality = resolve_answer(_resolved(), LEXICAL).resolution.quality
    assert quality is not None
    assert (quality.sentences, quality.sentences_uncited) == (5, 1)  # [9] is not valid
    assert (quality.supported, quality.unsupported, quality.unverifiable) == (3, 1, 1)
    # recalled: sentences 1, 2 and 3 (source 2 supports it); not: 4 (no text), 5 (uncited)
    assert quality.citation_recall == 0.6
    # sentence 3: [1] is irrelevant ([2] supports it alone); the others count: 3 of 5
    assert quality.citation_precision == 0.6
    assert quality.judge == "lexical"
