"""A provider citation given as a span over several sentences cites every one of them: each
sentence gets its own chip (after its own text), its own citation and its own verdict."""

from __future__ import annotations

from typing import Any

import orjson

from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer
from tests.services.providers import fixtures as fx

FIRST, SECOND = "It hosted Sartre.", "Beauvoir wrote there too."


def run(provider: str, line: dict[str, Any]) -> AnswerFormatted:
    result = process_answer(orjson.dumps(line), event_id="e1", provider=provider)
    assert isinstance(result, AnswerFormatted), result
    return result


def cited_sentences(result: AnswerFormatted, source_index: int) -> list[str]:
    """The text of each sentence a valid citation of `source_index` sits in."""
    return [result.sentences[c.sentence_index].text.strip() for c in result.citations
            if c.valid and c.source_index == source_index and c.sentence_index is not None]


def test_bedrock_span_over_two_sentences_cites_both() -> None:
    result = run("bedrock", fx.bedrock())
    flore = next(s.index for s in result.sources if s.doc_id == "s3://kb/flore.pdf")
    found = cited_sentences(result, flore)
    assert FIRST in found and SECOND in found, found
    plain = result.renderings.markdown or ""
    # a chip after each sentence, not only after the last
    assert plain.index(FIRST) + len(FIRST) < plain.index(SECOND)
    assert plain[plain.index(FIRST) + len(FIRST):].startswith("[^"), plain


def test_gemini_segment_over_two_sentences_cites_both() -> None:
    text = f"{fx.FLORE} {fx.TWO}"
    start, end = fx.gemini_bytes(text, fx.TWO)
    response = {"candidates": [{
        "content": {"role": "model", "parts": [{"text": text}]},
        "groundingMetadata": {
            "groundingChunks": [{"retrievedContext": {"uri": "gs://b/flore.txt",
                                                      "title": "flore.txt",
                                                      "text": fx.DOC_FLORE}}],
            "groundingSupports": [{"segment": {"startIndex": start, "endIndex": end,
                                               "text": fx.TWO},
                                   "groundingChunkIndices": [0]}]}}]}
    result = run("gemini", fx.line(response, None, "gemini-two"))
    found = cited_sentences(result, 1)
    assert found == [FIRST, SECOND], found
    # each sentence is judged on its own
    verdicts = [c.support for c in result.citations if c.valid]
    assert len(verdicts) == 2 and all(v is not None for v in verdicts)
