"""AWS Bedrock Knowledge Bases `RetrieveAndGenerate`: `citations`, each a
`generatedResponsePart.textResponsePart` (`text` and its `span` in `output.text`) with the
`retrievedReferences` that support it (chunk `content.text`, `location`, `metadata`).

Span offsets count characters (read as code points); `end` is the last character (inclusive)
in the responses seen, so each span is checked against the part's `text` and moved onto it
(`place`). Sources are keyed by their location (S3 URI, web URL, …); each reference's text is
a chunk of its source, with its page when the metadata has one.
"""

from __future__ import annotations

from typing import Any

from services.providers.draft import (
    Draft,
    arr,
    integer,
    obj,
    optional_str,
    place,
    string,
)

_LOCATIONS = (
    ("s3Location", "uri"), ("webLocation", "url"), ("confluenceLocation", "url"),
    ("salesforceLocation", "url"), ("sharePointLocation", "url"),
    ("kendraDocumentLocation", "uri"), ("customDocumentLocation", "id"),
)
_PAGE = "x-amz-bedrock-kb-document-page-number"


def _where(location: Any) -> tuple[str | None, bool]:
    """The location's URI or id, and whether it is a web page."""
    if not isinstance(location, dict):
        return None, False
    for name, key in _LOCATIONS:
        place_ = location.get(name)
        if isinstance(place_, dict) and isinstance(place_.get(key), str):
            return place_[key], name == "webLocation"
    return None, False


def _reference(draft: Draft, reference: dict[str, Any], number: str) -> int:
    where, web = _where(reference.get("location"))
    given = reference.get("metadata")
    metadata: dict[str, Any] = given if isinstance(given, dict) else {}
    url = where if where and where.startswith(("http://", "https://")) else None
    index = draft.source(where or number, kind="web" if web else "document", url=url,
                         doc_id=None if web else where)
    content = reference.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    page = metadata.get(_PAGE)
    if isinstance(text, str):
        draft.add_chunk(index, text, page=int(page) if isinstance(page, int | float) and page >= 1
                        else None)
    return index


def normalize(draft: Draft, response: Any, request: Any) -> None:
    """Fill `draft` from a RetrieveAndGenerate response."""
    body = obj(response, "$.response")
    output = obj(body.get("output"), "$.response.output")
    answer = string(output.get("text"), "$.response.output.text")
    draft.add_text(answer)
    if isinstance(request, dict):
        query = request.get("input")
        draft.query = optional_str(query.get("text")) if isinstance(query, dict) else None
    for c, citation in enumerate(arr(body.get("citations"), "$.response.citations")):
        path = f"$.response.citations[{c}]"
        citation = obj(citation, path)
        part = obj(obj(citation.get("generatedResponsePart"), f"{path}.generatedResponsePart")
                   .get("textResponsePart"), f"{path}.generatedResponsePart.textResponsePart")
        span = obj(part.get("span"), f"{path}.generatedResponsePart.textResponsePart.span")
        said = part.get("text") if isinstance(part.get("text"), str) else None
        start, end, problem = place(
            answer, integer(span.get("start"), f"{path}.generatedResponsePart.textResponsePart.span.start"),
            integer(span.get("end"), f"{path}.generatedResponsePart.textResponsePart.span.end"), said,
        )
        references = arr(citation.get("retrievedReferences"), f"{path}.retrievedReferences")
        if not references:
            draft.cite(None, start, end, problem=problem or "the citation has no references")
        cited: set[int] = set()  # several chunks of one source back the part once
        for r, reference in enumerate(references):
            index = _reference(draft, obj(reference, f"{path}.retrievedReferences[{r}]"),
                               f"reference-{c}-{r}")
            if index not in cited:
                cited.add(index)
                draft.cite(index, start, end, problem=problem)
