"""Anthropic Messages API: text blocks carrying `citations` of every location type.

The answer is the response's text blocks joined; a cited block is the span its citations
support (offsets are code points of the joined text: built here, nothing converted). Sources
live in the request: `document` blocks (plain text, custom content blocks, base64 PDF) in
document order (`document_index`), `search_result` blocks (in user messages or tool results)
in order (`search_result_index`); web search results come from the response's
`web_search_tool_result` blocks, or from the citation's own URL. `cited_text` becomes a
verbatim claim (checked against the source text), except for a web search result: its
content is encrypted, so `cited_text` is the source's passage instead (shown and
highlighted), never its own proof.
"""

from __future__ import annotations

import base64
from typing import Any

from services.providers.draft import (
    Draft,
    arr,
    integer,
    last_user_text,
    obj,
    optional_str,
    string,
)

_LOCATED_IN_DOCUMENTS = ("char_location", "page_location", "content_block_location")


class _Sources:
    """The request's documents and search results as sources of the draft."""

    def __init__(self, draft: Draft, request: Any) -> None:
        self.draft = draft
        self.documents: list[int] = []
        self.search_results: list[int] = []
        messages = request.get("messages") if isinstance(request, dict) else None
        for m, message in enumerate(arr(messages, "$.request.messages")):
            content = obj(message, f"$.request.messages[{m}]").get("content")
            if isinstance(content, list):
                self._blocks(content, f"$.request.messages[{m}].content")

    def _blocks(self, blocks: list[Any], path: str) -> None:
        for b, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "document":
                self._document(block, f"{path}[{b}]")
            elif kind == "search_result":
                self.search_result(block, f"{path}[{b}]")
            elif kind == "tool_result" and isinstance(block.get("content"), list):
                self._blocks(block["content"], f"{path}[{b}].content")

    def _document(self, block: dict[str, Any], path: str) -> None:
        number = len(self.documents)
        source = obj(block.get("source"), f"{path}.source")
        url = optional_str(source.get("url"))
        index = self.draft.source(
            ("document", number), title=optional_str(block.get("title")), url=url,
            doc_id=optional_str(source.get("file_id")) or f"document-{number}",
        )
        self.documents.append(index)
        kind = source.get("type")
        if kind == "text":
            text = string(source.get("data"), f"{path}.source.data")
            self.draft.add_chunk(index, text, chunk_id=f"document-{number}")
        elif kind == "content":
            for k, part in enumerate(arr(source.get("content"), f"{path}.source.content")):
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    self.draft.add_chunk(index, part["text"], chunk_id=f"document-{number}-block-{k}")
        elif kind == "base64" and source.get("media_type") == "application/pdf":
            self._pdf(index, number, source.get("data"))

    def _pdf(self, index: int, number: int, data: Any) -> None:
        """A base64 PDF's pages as chunks; an unreadable one adds no text (its citations'
        quotes then stay unverified, never called verbatim)."""
        import pymupdf

        try:
            document = pymupdf.open(stream=base64.b64decode(data or ""), filetype="pdf")
        except Exception:  # noqa: BLE001 - any decoding or parsing failure: no source text
            return
        with document:
            self.draft.sources[index - 1]["format"] = "pdf"
            for page_number in range(1, document.page_count + 1):
                text = document.load_page(page_number - 1).get_text()
                self.draft.add_chunk(
                    index, text, chunk_id=f"document-{number}-page-{page_number}",
                    page=page_number,
                )

    def search_result(self, block: dict[str, Any], path: str) -> None:
        number = len(self.search_results)
        index = self.draft.source(
            ("search_result", number), title=optional_str(block.get("title")),
            url=optional_str(block.get("source")),
        )
        self.search_results.append(index)
        for k, part in enumerate(arr(block.get("content"), f"{path}.content")):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                self.draft.add_chunk(index, part["text"], chunk_id=f"search-result-{number}-{k}")

    def web(self, url: str | None, title: str | None) -> int:
        return self.draft.source(("web", url or title), kind="web", url=url, title=title)

    def located(self, citation: dict[str, Any], path: str) -> tuple[int | None, str | None]:
        """The source a citation cites, or a problem."""
        kind = citation.get("type")
        if kind in _LOCATED_IN_DOCUMENTS:
            number = integer(citation.get("document_index"), f"{path}.document_index")
            if number < len(self.documents):
                return self.documents[number], None
            return None, f"document_index {number}: the request has {len(self.documents)} documents"
        if kind == "search_result_location":
            number = integer(citation.get("search_result_index"), f"{path}.search_result_index")
            if number < len(self.search_results):
                return self.search_results[number], None
            return None, (
                f"search_result_index {number}: the request has "
                f"{len(self.search_results)} search results"
            )
        if kind == "web_search_result_location":
            return self.web(optional_str(citation.get("url")), optional_str(citation.get("title"))), None
        return None, f"unknown citation type {kind!r}"


def normalize(draft: Draft, response: Any, request: Any) -> None:
    """Fill `draft` from a Messages API response (and its request)."""
    body = obj(response, "$.response")
    content = arr(body.get("content"), "$.response.content", optional=False)
    sources = _Sources(draft, request)
    if isinstance(request, dict):
        draft.query = last_user_text(request.get("messages"))
    for b, block in enumerate(content):
        path = f"$.response.content[{b}]"
        block = obj(block, path)
        if block.get("type") == "web_search_tool_result" and isinstance(block.get("content"), list):
            for result in block["content"]:
                if isinstance(result, dict) and result.get("type") == "web_search_result":
                    sources.web(optional_str(result.get("url")), optional_str(result.get("title")))
        elif block.get("type") == "search_result":
            sources.search_result(block, path)
        if block.get("type") != "text":
            continue
        text = string(block.get("text"), f"{path}.text")
        start = draft.add_text(text)
        for c, citation in enumerate(arr(block.get("citations"), f"{path}.citations")):
            where = f"{path}.citations[{c}]"
            citation = obj(citation, where)
            index, problem = sources.located(citation, where)
            cited_text = optional_str(citation.get("cited_text"))
            if citation.get("type") == "web_search_result_location":
                # The only text of a web search result the response carries (its content is
                # encrypted): the source's passage to show and highlight. Not a verbatim
                # claim: the source would hold nothing but the claim's own quote.
                if index is not None and cited_text:
                    draft.add_chunk(index, cited_text)
                cited_text = None
            page = citation.get("start_page_number") if citation.get("type") == "page_location" else None
            draft.cite(
                index, start, start + len(text),
                quote=cited_text,
                page=page if isinstance(page, int) and page >= 1 else None,
                label=optional_str(citation.get("document_title") or citation.get("url")),
                problem=problem,
            )
