"""Anthropic web search: a `web_search_result_location` citation's `cited_text` is the only
text of the result the response carries (its content is encrypted); it becomes the web
source's passage, so the citation has a passage, a link into the page and a highlight."""

from __future__ import annotations

import orjson

from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer

URL = "https://example.org/flore"
CITED = "Le café de Flore ouvrit en 1887 à Paris."
TEXT = "The Café de Flore opened in 1887."


def _line() -> dict[str, object]:
    response = {"content": [
        {"type": "server_tool_use", "id": "t1", "name": "web_search",
         "input": {"query": "café de flore"}},
        {"type": "web_search_tool_result", "tool_use_id": "t1", "content": [
            {"type": "web_search_result", "url": URL, "title": "Café de Flore",
             "encrypted_content": "EqgfCioIARgBIiQ3YTAw", "page_age": "2024"}]},
        {"type": "text", "text": TEXT, "citations": [
            {"type": "web_search_result_location", "url": URL, "title": "Café de Flore",
             "encrypted_index": "Eo8BCioIAhgBIiQyYjQ", "cited_text": CITED}]},
    ]}
    request = {"messages": [{"role": "user", "content": "When did the Café de Flore open?"}]}
    return {"answer_id": "web-search-1", "response": response, "request": request}


def test_cited_text_is_the_web_source_s_passage() -> None:
    result = process_answer(orjson.dumps(_line()), event_id="e1", provider="anthropic")
    assert isinstance(result, AnswerFormatted), result
    source = next(s for s in result.sources if s.url == URL)
    assert source.kind == "web" and source.excerpt and CITED in source.excerpt
    citation = next(c for c in result.citations if c.source_index == source.index)
    assert citation.valid
    link = next(link for link in result.links if link.citation_id == citation.id)
    assert link.passage and CITED in link.passage
    assert link.locator is not None and link.locator.type == "web"
    assert link.locator.url == URL and link.locator.selector is not None
    assert CITED in link.locator.selector.exact
