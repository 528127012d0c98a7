"""`citeflow bench adapters`: provider-native input. The benchmark answer is
rewritten as each provider would return it (its `[N]` markers turned into that provider's
citations over the same sentences, with the same sources and quotes); then, per provider,
normalisation per answer beside `orjson.loads` of the same line (the floor: reading the
JSON at all), and the whole in-process pipeline on the provider line beside the `[N]` answer.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from functools import partial
from itertools import accumulate
from typing import Any

import orjson

from schemas.answers import PROVIDERS, AnswerSubmitted
from schemas.formatted import AnswerFormatted
from services.bench.timing import median_ms
from services.bench.workload import bench_answer
from services.pipeline import process_answer
from services.providers import normalize
from services.text.extraction import extract

Cite = tuple[int, int, int, str | None]  # start, end, source index, quote (code points)
Sources = list[dict[str, Any]]


def unmarked(answer: dict[str, Any]) -> tuple[str, list[Cite]]:
    """The answer's text without its markers, and each citation as the span of its sentence
    up to its marker (markers left out) with its source and, for a verbatim unit, its quote."""
    parsed = AnswerSubmitted.model_validate(answer)
    text = parsed.text
    found = extract(text, parsed.sources)
    quotes = {u.text: u.quote for u in parsed.answer_units or [] if u.kind == "verbatim"}
    clusters = found.clusters
    ends = [cluster.end for cluster in clusters]
    widths = [0, *accumulate(cluster.end - cluster.start for cluster in clusters)]

    def moved(position: int) -> int:  # never inside a marker here
        return position - widths[bisect_right(ends, position)]

    pieces, done = [], 0
    for cluster in clusters:
        pieces.append(text[done : cluster.start])
        done = cluster.end
    pieces.append(text[done:])
    cites = [
        (moved(found.sentences[c.sentence_index].start), moved(c.start), c.source_index,
         quotes.get(found.sentences[c.sentence_index].text))
        for c in found.citations if c.source_index is not None
    ]
    return "".join(pieces), cites


def _texts(sources: Sources) -> list[str]:
    return ["\n".join(chunk["text"] for chunk in source["chunks"]) for source in sources]


def anthropic(text: str, cites: list[Cite], sources: Sources) -> tuple[Any, Any]:
    blocks: list[dict[str, Any]] = []
    done = 0
    for start, end, index, quote in cites:
        if start > done:
            blocks.append({"type": "text", "text": text[done:start]})
        blocks.append({"type": "text", "text": text[start:end], "citations": [{
            "type": "char_location", "cited_text": quote or "", "document_index": index - 1,
            "document_title": sources[index - 1]["title"], "start_char_index": 0,
            "end_char_index": 0}]})
        done = end
    blocks.append({"type": "text", "text": text[done:]})
    documents = [{"type": "document", "title": s["title"], "source": {
        "type": "text", "media_type": "text/plain", "data": body}}
        for s, body in zip(sources, _texts(sources), strict=True)]
    return {"content": blocks}, {"messages": [{"role": "user", "content": documents}]}


def gemini(text: str, cites: list[Cite], sources: Sources) -> tuple[Any, Any]:
    supports = [{"segment": {"startIndex": len(text[:start].encode()),
                             "endIndex": len(text[:end].encode()), "text": text[start:end]},
                 "groundingChunkIndices": [index - 1]} for start, end, index, _ in cites]
    chunks = [{"retrievedContext": {"uri": s["doc_id"], "title": s["title"], "text": body}}
              for s, body in zip(sources, _texts(sources), strict=True)]
    return {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": {
        "groundingChunks": chunks, "groundingSupports": supports}}]}, None


def cohere(text: str, cites: list[Cite], sources: Sources) -> tuple[Any, Any]:
    bodies = _texts(sources)
    return {"message": {"content": [{"type": "text", "text": text}], "citations": [
        {"start": start, "end": end, "text": text[start:end], "sources": [
            {"type": "document", "id": f"doc:{index - 1}", "document": {
                "title": sources[index - 1]["title"], "snippet": bodies[index - 1]}}]}
        for start, end, index, _ in cites]}}, None


def bedrock(text: str, cites: list[Cite], sources: Sources) -> tuple[Any, Any]:
    return {"output": {"text": text}, "citations": [
        {"generatedResponsePart": {"textResponsePart": {
            "text": text[start:end], "span": {"start": start, "end": end - 1}}},
         "retrievedReferences": [
             {"content": {"text": chunk["text"]},
              "location": {"s3Location": {"uri": f"s3://kb/{sources[index - 1]['doc_id']}"}}}
             for chunk in sources[index - 1]["chunks"]]}
        for start, end, index, _ in cites]}, None


def openai(text: str, cites: list[Cite], sources: Sources) -> tuple[Any, Any]:
    results = [{"file_id": s["doc_id"], "filename": s["title"], "text": chunk["text"]}
               for s in sources for chunk in s["chunks"]]
    return {"output": [
        {"type": "file_search_call", "results": results},
        {"type": "message", "content": [{"type": "output_text", "text": text, "annotations": [
            {"type": "file_citation", "file_id": sources[index - 1]["doc_id"],
             "filename": sources[index - 1]["title"], "index": end}
            for _, end, index, _ in cites]}]}]}, None


def perplexity(marked: str, sources: Sources) -> tuple[Any, Any]:
    return {"choices": [{"message": {"content": marked}}], "search_results": [
        {"title": s["title"], "url": f"https://example.org/{s['doc_id']}",
         "snippet": body} for s, body in zip(sources, _texts(sources), strict=True)]}, None


def langchain(text: str, cites: list[Cite], sources: Sources) -> tuple[Any, Any]:
    return {"content_blocks": [{"type": "text", "text": text, "annotations": [
        {"type": "citation", "title": sources[index - 1]["title"], "start_index": start,
         "end_index": end, "cited_text": quote} for start, end, index, quote in cites]}]}, None


BUILDERS: dict[str, Callable[[str, list[Cite], Sources], tuple[Any, Any]]] = {
    "anthropic": anthropic, "openai": openai, "gemini": gemini, "cohere": cohere,
    "bedrock": bedrock, "langchain": langchain,
}


def provider_lines() -> dict[str, bytes]:
    """The bench answer as one line per provider (JSON bytes)."""
    answer = bench_answer()
    text, cites = unmarked(answer)
    sources = answer["sources"]
    lines: dict[str, bytes] = {}
    for provider in PROVIDERS:
        if provider == "perplexity":
            response, request = perplexity(answer["text"], sources)
        else:
            response, request = BUILDERS[provider](text, cites, sources)
        lines[provider] = orjson.dumps({"answer_id": f"bench-{provider}", "query": answer["query"],
                                        "response": response, "request": request})
    return lines


def _normalise(provider: str, raw: bytes) -> AnswerSubmitted:
    return normalize(provider, orjson.loads(raw))


def bench_adapters(runs: int) -> dict[str, Any]:
    """Per provider: normalisation and the whole pipeline per answer, with their references."""
    answer = bench_answer()
    del answer["answer_units"]  # like the provider lines: citations only, no upstream units
    marked = orjson.dumps(answer)
    rows = {}
    for provider, raw in provider_lines().items():
        result = process_answer(raw, event_id="b", provider=provider)
        if not isinstance(result, AnswerFormatted):
            raise TypeError(f"{provider} bench line did not format: {result}")
        loads = median_ms(partial(orjson.loads, raw), runs, warmup=3)
        normalise = median_ms(partial(_normalise, provider, raw), runs, warmup=3)
        pipeline = median_ms(
            partial(process_answer, raw, event_id="b", provider=provider), runs, warmup=3
        )
        # the `[N]` answer measured right beside it (the machine's load drifts)
        reference = median_ms(lambda: process_answer(marked, event_id="b"), runs, warmup=3)
        rows[provider] = {
            "bytes": len(raw), "citations": len(result.citations),
            "valid": sum(c.valid for c in result.citations),
            "json_loads_ms": loads, "normalize_ms": normalise, "pipeline_ms": pipeline,
            "marked_pipeline_ms": reference, "pipeline_over_marked": pipeline / reference,
        }
    return {"marked_bytes": len(marked), "providers": rows}
