"""Cohere v2 chat: `message.citations`, each a span (`start`, `end`, `text`) of the answer's
content part `content_index` (default 0) with its `sources`: documents (`type: document`,
with the document's fields) and tool results (`type: tool`, with the tool output); one with
a `url` (a web search result) is a web source.

Offsets count characters of the part: read as code points, shifted by the part's place in
the joined answer, checked against the citation's `text`. Sources are keyed by their id;
documents of the request (`documents`: strings or `{id, data}`; ids default to `doc:N`) add
their text. A citation's `text` is answer text, not a quote: no verbatim claims.
"""

from __future__ import annotations

from typing import Any

from services.providers.draft import (
    Draft,
    arr,
    integer,
    last_user_text,
    obj,
    optional_str,
    place,
    string,
)

_TEXT_FIELDS = ("text", "snippet", "content", "body")
_NAME_FIELDS = ("title", "url", "id")


def _document_text(fields: dict[str, Any]) -> str:
    """The text of a document's or tool output's fields: its text field, else every string
    value but its names."""
    for name in _TEXT_FIELDS:
        if isinstance(fields.get(name), str):
            return str(fields[name])
    return "\n".join(
        f"{key}: {value}" for key, value in fields.items()
        if key not in _NAME_FIELDS and isinstance(value, str | int | float)
    )


def _source(draft: Draft, key: str, fields: dict[str, Any], kind: str) -> int:
    """A document or tool output as a source. One with a url (a web search tool's result) is
    a web page, known by its id; without, a document named by its id."""
    url = optional_str(fields.get("url"))
    index = draft.source(
        key, kind="web" if url else "document", doc_id=None if url else key,
        title=optional_str(fields.get("title")), url=url,
        source_id=key if kind == "tool" or url else None,
    )
    draft.add_chunk(index, _document_text(fields))
    return index


def _request_documents(draft: Draft, request: Any) -> None:
    documents = request.get("documents") if isinstance(request, dict) else None
    for d, document in enumerate(arr(documents, "$.request.documents")):
        if isinstance(document, str):
            _source(draft, f"doc:{d}", {"text": document}, "document")
        elif isinstance(document, dict):
            data = document.get("data")
            fields = data if isinstance(data, dict) else {"text": data} if isinstance(data, str) else {}
            _source(draft, optional_str(document.get("id")) or f"doc:{d}", fields, "document")


def normalize(draft: Draft, response: Any, request: Any) -> None:
    """Fill `draft` from a v2 chat response (and its request's documents)."""
    body = obj(response, "$.response")
    message = obj(body.get("message"), "$.response.message")
    offsets = []
    for c, part in enumerate(arr(message.get("content"), "$.response.message.content")):
        part = obj(part, f"$.response.message.content[{c}]")
        text = string(part.get("text", ""), f"$.response.message.content[{c}].text")
        offsets.append(draft.add_text(text) if part.get("type", "text") == "text" else draft.size)
    _request_documents(draft, request)
    if isinstance(request, dict):
        draft.query = last_user_text(request.get("messages"))
    answer = draft.text
    for c, citation in enumerate(arr(message.get("citations"), "$.response.message.citations")):
        path = f"$.response.message.citations[{c}]"
        citation = obj(citation, path)
        if citation.get("type") not in (None, "TEXT_CONTENT"):
            continue  # citations of the plan or of thinking are not in the answer
        part = integer(citation.get("content_index"), f"{path}.content_index", 0)
        shift = offsets[part] if part < len(offsets) else None
        first = integer(citation.get("start"), f"{path}.start")
        last = integer(citation.get("end"), f"{path}.end")
        said = citation.get("text") if isinstance(citation.get("text"), str) else None
        problem = None
        if shift is None:
            start, end, problem = draft.size, draft.size, f"content_index {part} does not exist"
        else:
            start, end, problem = place(answer, shift + first, shift + last, said)
        cited = arr(citation.get("sources"), f"{path}.sources")
        if not cited:
            draft.cite(None, start, end, problem=problem or "the citation names no source")
        for s, source in enumerate(cited):
            source = obj(source, f"{path}.sources[{s}]")
            kind = source.get("type", "document")
            fields = source.get("document") if kind == "document" else source.get("tool_output")
            key = optional_str(source.get("id")) or f"{kind}:{c}:{s}"
            index = _source(draft, key, fields if isinstance(fields, dict) else {}, kind)
            draft.cite(index, start, end, problem=problem, label=key)
