"""Each provider adapter on a realistic response, through the whole in-process pipeline:
the spans it ties citations to, the sources it builds, flagged (never dropped) citations,
verbatim claims only where the source text holds the quote."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from schemas.answers import AnswerRejected, AnswerSubmitted
from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer
from services.providers import normalize
from tests.services.providers import fixtures as fx


def run(provider: str, line: dict[str, Any]) -> AnswerFormatted:
    result = process_answer(orjson.dumps(line), event_id="e1", provider=provider)
    assert isinstance(result, AnswerFormatted), result
    return result


def spans(answer: AnswerSubmitted) -> list[tuple[str, int | None]]:
    """Each supplied citation as (the answer text it covers, its source index)."""
    return [(answer.text[c.start : c.end], c.source_index) for c in answer.citations or []]


def problems(result: AnswerFormatted) -> list[str]:
    return sorted(p.code for p in result.problems)


def test_anthropic_every_location_type() -> None:
    answer = normalize("anthropic", fx.anthropic())
    titles = {s.index: s.title or s.url for s in answer.sources}
    assert titles == {1: "Flore", 2: "Tokyo", 3: "Vienna", 4: "Kyoto cafés",
                      5: "Flore history"}
    assert answer.query == "Tell me about café history."
    assert spans(answer) == [
        (fx.FLORE, 1), (fx.FLORE, 5), (fx.TOKYO, 2), (fx.KYOTO, 4), (fx.TWO, 1),
        (fx.VIENNA, 3), (fx.VIENNA, None), (fx.VIENNA, None),
    ]
    assert [c.page for c in answer.citations or []][5] == 1
    result = run("anthropic", fx.anthropic())
    # the web result's cited_text is its source's passage, never a verbatim claim of its own
    assert [(u.text, u.kind) for u in result.answer_units.units] == [
        (fx.FLORE, "verbatim"), (fx.TOKYO, "verbatim"),
        (fx.KYOTO, "verbatim"), (fx.TWO, "verbatim"), (fx.VIENNA, "verbatim")]
    pdf_span = result.answer_units.units[-1].source_spans[0]
    assert pdf_span.quote == "the first licence was granted"
    assert problems(result) == ["provider_citation", "provider_citation"]
    # several citations on one sentence, and one spanning two sentences
    two = [s.index for s in result.sentences if s.text in ("It hosted Sartre.",
                                                            "Beauvoir wrote there too.")]
    assert len(two) == 2
    assert all(result.sentence_map[str(i)] == [1] for i in two)
    assert result.sentence_map["0"] == [1, 5]
    assert "Café de Flore opened in 1887 in Paris." in result.renderings.plain


def test_gemini_byte_offsets_become_code_points() -> None:
    answer = normalize("gemini", fx.gemini())
    text = answer.text
    assert text == fx.GEMINI_TEXT
    assert len(text.encode()) != len(text) != len(text.encode("utf-16-le")) // 2
    cited = spans(answer)
    assert cited[:4] == [(fx.FLORE, 1), (fx.FLORE, 2), (fx.TOKYO, 3), (fx.KYOTO, 2)]
    flagged = (answer.citations or [])[4:]
    # bytes past the part and bytes inside 東 are flagged by the adapter; chunk 9 by the stage
    assert [(c.problem is not None, c.source_index) for c in flagged] == [
        (True, 1), (True, 1), (False, 10)]
    result = run("gemini", fx.gemini())
    assert problems(result) == ["provider_citation", "provider_citation", "unknown_source"]
    valid = [c for c in result.citations if c.valid]
    assert [(c.span.start, c.span.end) for c in valid if c.span] == [
        (0, len(fx.FLORE)), (0, len(fx.FLORE)),
        (text.index(fx.TOKYO), text.index(fx.TOKYO) + len(fx.TOKYO)),
        (text.index(fx.KYOTO), text.index(fx.KYOTO) + len(fx.KYOTO)),
    ]
    # JavaScript offsets: the astral 🍰 inside the last span makes UTF-16 differ
    last = valid[-1].span
    assert last is not None
    assert last.end_utf16 == len(text[: last.end].encode("utf-16-le")) // 2 != last.end
    assert result.coverage.sentences_cited == 3


def test_openai_responses_annotations() -> None:
    answer = normalize("openai", fx.openai_responses())
    link_start = answer.text.index("([example.org]")
    kyoto_end = answer.text.index(fx.KYOTO) + len(fx.KYOTO)
    assert [(c.start, c.end, c.visible, c.source_index) for c in answer.citations or []] == [
        (link_start, answer.text.index(")).") + 2, True, 2),
        (kyoto_end, kyoto_end, False, 1),
        (answer.text.index("cafes.csv"), len(answer.text), True, 3),
    ]
    assert answer.sources[0].chunks[0].text == fx.DOC_KYOTO  # file_search_call results
    result = run("openai", fx.openai_responses())
    assert problems(result) == []
    body = result.renderings.plain.split("\n\nReferences")[0]
    assert "example.org](" not in body and "cafes.csv" not in body  # chips now


def test_openai_chat_completions_annotations() -> None:
    result = run("openai", fx.openai_chat())
    assert [(c.marker, c.source_index, c.valid) for c in result.citations] == [
        ("[example.org](https://example.org/kyoto)", 1, True)]
    assert result.sources[0].url == "https://example.org/kyoto"


def test_openai_assistants_markers_resolved_by_annotations() -> None:
    result = run("openai", fx.openai_assistants())
    assert [(c.marker, c.valid) for c in result.citations] == [
        ("【4:0†flore.txt】", True), ("【7:1†source】", False)]
    assert problems(result) == ["quote_not_found", "unresolved_marker"]
    assert "【" not in result.renderings.plain


def test_cohere_documents_and_tools() -> None:
    answer = normalize("cohere", fx.cohere())
    assert [s.doc_id for s in answer.sources] == ["doc:0", "doc:1", "search_cafes:0:2:0"]
    assert spans(answer)[:3] == [("1887", 1), ("emoji menus 🍰☕", 2), ("emoji menus 🍰☕", 3)]
    result = run("cohere", fx.cohere())
    assert problems(result) == ["span_out_of_range"]
    # the out-of-range citation is kept, flagged, at the end: in the last sentence's ids
    assert result.sentence_map == {"0": [1], "1": [1, 2, 3]}
    assert [c.valid for c in result.citations] == [True, True, True, False]


def test_perplexity_markers_index_search_results() -> None:
    answer = normalize("perplexity", fx.perplexity())
    assert answer.text.startswith("Café de Flore")  # the <think> section is not the answer
    result = run("perplexity", fx.perplexity())
    assert [(c.marker, c.source_index) for c in result.citations] == [
        ("[1]", 1), ("[2]", 2), ("[3]", 3)]
    assert [s.url for s in result.sources][:3] == [
        "https://example.org/flore", "https://example.org/kyoto", "https://example.org/menus"]


def test_bedrock_inclusive_span_end() -> None:
    answer = normalize("bedrock", fx.bedrock())
    assert spans(answer)[:4] == [(fx.FLORE, 1), (fx.TOKYO, 2), (fx.TOKYO, 3), (fx.TWO, 1)]
    assert answer.sources[0].chunks[0].page == 3
    result = run("bedrock", fx.bedrock())
    assert problems(result) == ["provider_citation"]
    assert result.coverage.sentences_cited == result.coverage.sentences_total == 4


def test_langchain_citation_blocks() -> None:
    answer = normalize("langchain", fx.langchain())
    assert spans(answer) == [(fx.TOKYO, 1), (fx.KYOTO, 2), ("東京の", None)]
    result = run("langchain", fx.langchain())
    # no source text came with the citations: the quotes are claims left unverified
    assert {u.kind for u in result.answer_units.units} == {"derived"}
    assert problems(result) == ["provider_citation", "quote_not_found", "quote_not_found"]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini", "cohere", "bedrock",
                                      "perplexity", "langchain"])
def test_response_without_citations(provider: str) -> None:
    responses = {
        "anthropic": {"content": [{"type": "text", "text": "No sources were needed."}]},
        "openai": {"output": [{"type": "message", "content": [
            {"type": "output_text", "text": "No sources were needed.", "annotations": []}]}]},
        "gemini": {"candidates": [{"content": {"parts": [{"text": "No sources were needed."}]}}]},
        "cohere": {"message": {"content": [{"type": "text", "text": "No sources were needed."}]}},
        "bedrock": {"output": {"text": "No sources were needed."}, "citations": []},
        "perplexity": {"choices": [{"message": {"content": "No sources were needed."}}]},
        "langchain": {"type": "ai", "content": "No sources were needed."},
    }
    result = run(provider, fx.line(responses[provider]))
    assert result.text == "No sources were needed."
    assert result.citations == [] and result.problems == []


@pytest.mark.parametrize(
    ("provider", "response", "path"),
    [
        ("anthropic", {"content": "text"}, "$.response.content"),
        ("anthropic", {"content": [{"type": "text", "text": 5}]}, "$.response.content[0].text"),
        ("anthropic", {"content": [{"type": "text", "text": "a", "citations": [
            {"type": "char_location", "document_index": -1}]}]},
         "$.response.content[0].citations[0].document_index"),
        ("openai", {"something": 1}, "$.response"),
        ("openai", {"choices": []}, "$.response.choices"),
        ("gemini", {"candidates": [{"content": {"parts": [{"text": "a"}]},
                                    "groundingMetadata": {"groundingSupports": [{"segment": {}}]}}]},
         "$.response.candidates[0].groundingMetadata.groundingSupports[0].segment.endIndex"),
        ("cohere", {"message": "hi"}, "$.response.message"),
        ("bedrock", {"output": {}}, "$.response.output.text"),
        ("perplexity", [], "$.response"),
        ("langchain", {"type": "ai"}, "$.response"),
    ],
)
def test_malformed_responses_are_rejected_with_their_path(
    provider: str, response: Any, path: str
) -> None:
    result = process_answer(orjson.dumps(fx.line(response)), event_id="e", provider=provider)
    assert isinstance(result, AnswerRejected)
    assert (result.code, result.path, result.answer_id) == ("invalid_provider_response", path, "p1")


def test_malformed_lines_are_rejected() -> None:
    cases = [(b"[1]", "not_an_object"), (b'{"answer_id": "x"}', "missing_field"),
             (b'{"answer_id": "bad id", "response": {}}', "invalid_answer_id"), (b"{", "invalid_json")]
    for raw, code in cases:
        result = process_answer(raw, event_id="e", provider="gemini")
        assert isinstance(result, AnswerRejected) and result.code == code, (raw, result)


def test_cohere_tool_outputs_with_a_url_are_web_sources() -> None:
    answer = normalize("cohere", fx.cohere_tools())
    assert [(s.kind, s.url, s.doc_id, s.source_id) for s in answer.sources] == [
        ("web", "https://example.org/flore", None, "web_search_0:0"),
        ("web", "https://example.org/kyoto", None, "web_search_0:1")]
    result = run("cohere", fx.cohere_tools())
    assert [(c.source_index, c.valid) for c in result.citations] == [(1, True), (2, True)]
    assert result.sources[0].title == "Café de Flore"
