"""Property: for every adapter that ties citations to offsets, the normalised citations'
spans slice the answer text to exactly the provider's own segment text, whatever mix of
ASCII, accents, CJK and emoji (astral: bytes, code points and UTF-16 all differ) comes
before. (Perplexity cites by `[n]` markers in the text, not offsets: not here.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from services.providers import normalize

Builder = Callable[[list[str], list[int]], Any]
_TEXT = st.text(alphabet="ab éü東京😀☕ .,", min_size=1, max_size=12)


def _starts(segments: list[str]) -> list[int]:
    starts, at = [], 0
    for segment in segments:
        starts.append(at)
        at += len(segment)
    return starts


def anthropic(segments: list[str], cited: list[int]) -> Any:
    quote = {"type": "char_location", "cited_text": "x", "document_index": 0,
             "start_char_index": 0, "end_char_index": 1}
    return {"content": [{"type": "text", "text": s, **({"citations": [quote]} if i in cited else {})}
                        for i, s in enumerate(segments)]}


def gemini(segments: list[str], cited: list[int]) -> Any:
    text = "".join(segments)
    starts = _starts(segments)
    supports = []
    for i in cited:
        start = len(text[: starts[i]].encode())
        supports.append({"segment": {"startIndex": start,
                                     "endIndex": start + len(segments[i].encode()),
                                     "text": segments[i]}, "groundingChunkIndices": [0]})
    return {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": {
        "groundingChunks": [{"web": {"uri": "https://example.org"}}],
        "groundingSupports": supports}}]}


def cohere(segments: list[str], cited: list[int]) -> Any:
    starts = _starts(segments)
    return {"message": {"content": [{"type": "text", "text": "".join(segments)}], "citations": [
        {"start": starts[i], "end": starts[i] + len(segments[i]), "text": segments[i],
         "sources": [{"type": "document", "id": "doc:0", "document": {"text": "t"}}]}
        for i in cited]}}


def bedrock(segments: list[str], cited: list[int]) -> Any:
    starts = _starts(segments)
    return {"output": {"text": "".join(segments)}, "citations": [
        {"generatedResponsePart": {"textResponsePart": {"text": segments[i], "span": {
            "start": starts[i], "end": starts[i] + len(segments[i]) - 1}}},
         "retrievedReferences": [{"content": {"text": "t"},
                                  "location": {"s3Location": {"uri": "s3://b/k"}}}]}
        for i in cited]}


def langchain(segments: list[str], cited: list[int]) -> Any:
    starts = _starts(segments)
    return {"content_blocks": [{"type": "text", "text": "".join(segments), "annotations": [
        {"type": "citation", "url": "https://example.org", "start_index": starts[i],
         "end_index": starts[i] + len(segments[i])} for i in cited]}]}


def openai(segments: list[str], cited: list[int]) -> Any:
    starts = _starts(segments)
    return {"output": [{"type": "message", "content": [{
        "type": "output_text", "text": "".join(segments), "annotations": [
            {"type": "url_citation", "url": "https://example.org", "title": "t",
             "start_index": starts[i], "end_index": starts[i] + len(segments[i])}
            for i in cited]}]}]}


BUILDERS: dict[str, Builder] = {"anthropic": anthropic, "gemini": gemini, "cohere": cohere,
                                "bedrock": bedrock, "langchain": langchain, "openai": openai}


@settings(max_examples=60, deadline=None)
@given(segments=st.lists(_TEXT, min_size=1, max_size=5), data=st.data())
def test_spans_slice_to_the_providers_segment_text(segments: list[str], data: Any) -> None:
    cited = sorted(data.draw(st.sets(st.integers(0, len(segments) - 1), min_size=1)))
    for provider, build in BUILDERS.items():
        line = {"answer_id": "prop", "response": build(segments, cited)}
        if provider == "anthropic":
            line["request"] = {"messages": [{"role": "user", "content": [{
                "type": "document", "source": {"type": "text", "data": "x"}}]}]}
        answer = normalize(provider, line)
        assert answer.text == "".join(segments)
        got = [answer.text[c.start : c.end] for c in answer.citations or []]
        assert got == [segments[i] for i in cited], provider
        assert all(c.problem is None for c in answer.citations or []), provider
