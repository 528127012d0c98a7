"""`answer.formatted` carries a support verdict on every valid citation and the quality block,
through the whole in-process pipeline and a validating JSON round trip."""

from __future__ import annotations

import orjson

from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer

ANSWER = {
    "answer_id": "support-1",
    "text": (
        "Paris is the capital of France [1]. The Louvre is the largest art museum [1][2]. "
        "Lyon is known for its cuisine [2]. Nothing cites this. Madrid is in Spain [7]."
    ),
    "sources": [
        {"index": 1, "title": "Paris", "chunks": [
            {"text": "Paris is the capital of France. The city hosts the Louvre, the world's "
                     "largest art museum.", "page": 2}]},
        {"index": 2, "title": "Lyon", "chunks": [
            {"text": "Lyon is known for its cuisine and its silk industry."}]},
    ],
}


def _formatted() -> AnswerFormatted:
    result = process_answer(orjson.dumps(ANSWER), event_id="e1")
    assert isinstance(result, AnswerFormatted), result
    return result


def test_every_valid_citation_carries_support() -> None:
    formatted = _formatted()
    assert [c.valid for c in formatted.citations] == [True, True, True, True, False]
    for citation in formatted.citations:
        assert (citation.support is None) == (not citation.valid)
    supports = [c.support for c in formatted.citations if c.support]
    assert [s.verdict for s in supports] == ["supported", "supported", "unsupported", "supported"]
    assert supports[0].judge == "verbatim"
    # the Louvre is in source 1, not in source 2; source 1 is cited beside it: no better source
    assert supports[2].better_source is None
    assert supports[2].missing == ["The", "Louvre", "the", "largest", "art", "museum"]
    # the evidence is the citation's supporting passage: its link, with the link's locator
    assert supports[1].evidence is None and supports[1].link is not None
    link = formatted.links[supports[1].link]
    citation = formatted.citations[1]
    assert (link.sentence_index, link.source_index) == (
        citation.sentence_index,
        citation.source_index,
    )
    assert link.locator is not None
    assert link.locator.type == "pdf_text" and "Louvre" in link.passage


def test_quality_block_and_round_trip() -> None:
    formatted = _formatted()
    quality = formatted.quality
    assert quality is not None
    assert (quality.sentences, quality.sentences_uncited) == (5, 2)
    assert quality.uncited_sentence_share == 0.4
    assert (quality.citation_recall, quality.citations_judged) == (0.6, 4)
    # [2] beside [1] in the second sentence is irrelevant: 3 of 4 citations count
    assert quality.citation_precision == 0.75
    decoded = AnswerFormatted.model_validate_json(formatted.model_dump_json())
    assert decoded.quality == quality
    assert [c.support for c in decoded.citations] == [c.support for c in formatted.citations]
