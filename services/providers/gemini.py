"""Google Gemini / Vertex AI `groundingMetadata`: `groundingChunks` are the sources (web
pages, or retrieved contexts with their text) and each of `groundingSupports` ties a
`segment` of the answer to chunk indices.

Segment offsets are UTF-8 BYTE offsets into the part `partIndex` (default 0): converted here
to code points (`services.providers.offsets.ByteOffsets`) and shifted by the part's place in
the joined answer, then checked against the segment's own `text`. An offset past the part or
inside a character is flagged on its citation, never guessed. Both the REST spelling
(camelCase) and the Python SDK's (snake_case) are read.
"""

from __future__ import annotations

from typing import Any

from services.providers.draft import (
    Draft,
    ProviderError,
    arr,
    integer,
    obj,
    optional_str,
    pick,
    place,
    string,
)
from services.providers.offsets import ByteOffsets


def _sources(draft: Draft, chunks: list[Any]) -> list[int]:
    found = []
    for i, chunk in enumerate(chunks):
        chunk = obj(chunk, f"$.response.candidates[0].groundingMetadata.groundingChunks[{i}]")
        web = chunk.get("web")
        context = pick(chunk, "retrievedContext", "retrieved_context")
        if isinstance(web, dict):
            found.append(draft.source(("chunk", i), kind="web", url=optional_str(web.get("uri")),
                                      title=optional_str(web.get("title"))))
        else:
            about = context if isinstance(context, dict) else {}
            index = draft.source(("chunk", i), url=optional_str(about.get("uri")),
                                 title=optional_str(about.get("title")))
            if isinstance(about.get("text"), str):
                draft.add_chunk(index, about["text"])
            found.append(index)
    return found


def normalize(draft: Draft, response: Any, request: Any) -> None:
    """Fill `draft` from a generateContent response."""
    body = obj(response, "$.response")
    candidates = arr(body.get("candidates"), "$.response.candidates", optional=False)
    if not candidates:
        raise ProviderError("no candidates", "$.response.candidates")
    candidate = obj(candidates[0], "$.response.candidates[0]")
    content = obj(candidate.get("content"), "$.response.candidates[0].content")
    parts: dict[int, tuple[int, ByteOffsets]] = {}
    for p, part in enumerate(arr(content.get("parts"), "$.response.candidates[0].content.parts")):
        part = obj(part, f"$.response.candidates[0].content.parts[{p}]")
        if "text" in part and not part.get("thought"):
            text = string(part["text"], f"$.response.candidates[0].content.parts[{p}].text")
            parts[p] = (draft.add_text(text), ByteOffsets(text))
    if isinstance(request, dict):
        draft.query = _request_text(request)
    meta = pick(candidate, "groundingMetadata", "grounding_metadata")
    if meta is None:
        return  # an answer without grounding: no citations
    where = "$.response.candidates[0].groundingMetadata"
    meta = obj(meta, where)
    sources = _sources(draft, arr(pick(meta, "groundingChunks", "grounding_chunks"),
                                  f"{where}.groundingChunks"))
    answer = draft.text
    supports = arr(pick(meta, "groundingSupports", "grounding_supports"), f"{where}.groundingSupports")
    for s, support in enumerate(supports):
        path = f"{where}.groundingSupports[{s}]"
        support = obj(support, path)
        segment = obj(support.get("segment"), f"{path}.segment")
        part_index = integer(pick(segment, "partIndex", "part_index"), f"{path}.segment.partIndex", 0)
        first = integer(pick(segment, "startIndex", "start_index"), f"{path}.segment.startIndex", 0)
        last = integer(pick(segment, "endIndex", "end_index"), f"{path}.segment.endIndex")
        said = segment.get("text") if isinstance(segment.get("text"), str) else None
        indices = arr(pick(support, "groundingChunkIndices", "grounding_chunk_indices"),
                      f"{path}.groundingChunkIndices")
        located = parts.get(part_index)
        problem = None
        start = end = draft.size
        if located is None:
            problem = f"segment partIndex {part_index} is not a text part"
        else:
            offset, offsets = located
            start_cp, end_cp = offsets.code_point(first), offsets.code_point(last)
            if start_cp is None or end_cp is None or start_cp > end_cp:
                problem = (
                    f"segment bytes [{first}, {last}) are not character boundaries within "
                    f"the part ({len(offsets.encoded)} bytes)"
                )
            else:
                start, end, problem = place(answer, offset + start_cp, offset + end_cp, said)
        for k, chunk in enumerate(indices):
            number = integer(chunk, f"{path}.groundingChunkIndices[{k}]")
            # a chunk index past the list cites source number + 1, which the stage flags
            index = sources[number] if number < len(sources) else number + 1
            draft.cite(index, start, end, problem=problem)


def _request_text(request: dict[str, Any]) -> str | None:
    """The last user turn's text of a generateContent request."""
    contents = request.get("contents")
    if isinstance(contents, str):
        return contents
    turns = contents if isinstance(contents, list) else []
    for t in reversed(range(len(turns))):
        turn = turns[t]
        if isinstance(turn, dict) and turn.get("role", "user") == "user":
            parts = arr(turn.get("parts"), f"$.request.contents[{t}].parts")
            texts = [p["text"] for p in parts if isinstance(p, dict)
                     and isinstance(p.get("text"), str)]
            return " ".join(texts) or None
    return None
