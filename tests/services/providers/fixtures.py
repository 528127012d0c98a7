"""Realistic provider responses written for these tests: our own prose in the documented
shapes, with every offset computed here (in each provider's unit) rather than typed in.
Non-ASCII text (accents, CJK, emoji) sits before cited segments so that bytes, code points
and UTF-16 units all differ."""

from __future__ import annotations

import base64
from typing import Any

import pymupdf

DOC_FLORE = (
    "Le café de Flore ouvrit en 1887 à Paris. Il accueillit Sartre et Beauvoir pendant la "
    "guerre, qui y écrivaient chaque matin."
)
DOC_TOKYO = ["東京の喫茶店は明治時代に始まった。", "最初の店は1888年に上野で開いた。"]
DOC_KYOTO = "Kyoto cafés adopted emoji menus 🍰☕ after 2015, first near the station."
PDF_TEXT = "Coffee houses in Vienna date from 1685, when the first licence was granted."

FLORE = "Café de Flore opened in 1887 in Paris."
TOKYO = "東京の喫茶店は明治時代に始まった。"
KYOTO = "Kyoto cafés adopted emoji menus 🍰☕ after 2015."
TWO = "It hosted Sartre. Beauvoir wrote there too."
VIENNA = "Vienna's first licence dates from 1685."


def pdf_base64(text: str) -> str:
    """A one-page PDF holding `text`, base64 as the Messages API takes it."""
    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 72), text, fontsize=10)
    data = document.tobytes()
    document.close()
    return base64.b64encode(data).decode("ascii")


def line(response: Any, request: Any = None, answer_id: str = "p1") -> dict[str, Any]:
    return {"answer_id": answer_id, "response": response, "request": request,
            "metadata": {"tenant": "t1"}}


def anthropic() -> dict[str, Any]:
    """Every location type, several citations on one block, one block spanning two
    sentences, and two citations that cannot be tied to a source."""
    def text(value: str, *citations: dict[str, Any]) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "text", "text": value}
        if citations:
            block["citations"] = list(citations)
        return block

    request = {
        "model": "claude-sonnet-4-5",
        "messages": [{
            "role": "user",
            "content": [
                {"type": "document", "title": "Flore",
                 "source": {"type": "text", "media_type": "text/plain", "data": DOC_FLORE},
                 "citations": {"enabled": True}},
                {"type": "document", "title": "Tokyo",
                 "source": {"type": "content", "content": [
                     {"type": "text", "text": part} for part in DOC_TOKYO]},
                 "citations": {"enabled": True}},
                {"type": "document", "title": "Vienna",
                 "source": {"type": "base64", "media_type": "application/pdf",
                            "data": pdf_base64(PDF_TEXT)},
                 "citations": {"enabled": True}},
                {"type": "search_result", "source": "https://example.org/kyoto",
                 "title": "Kyoto cafés", "content": [{"type": "text", "text": DOC_KYOTO}],
                 "citations": {"enabled": True}},
                {"type": "text", "text": "Tell me about café history."},
            ],
        }],
    }
    flore_start = DOC_FLORE.index("Le café")
    response = {
        "id": "msg_01", "type": "message", "role": "assistant",
        "content": [
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "url": "https://example.org/flore-history",
                 "title": "Flore history", "encrypted_content": "EqgfCioIARgBIiQ3"}]},
            text(FLORE,
                 {"type": "char_location", "cited_text": DOC_FLORE[flore_start:40],
                  "document_index": 0, "document_title": "Flore",
                  "start_char_index": flore_start, "end_char_index": 40},
                 {"type": "web_search_result_location", "cited_text": "Flore opened in 1887",
                  "url": "https://example.org/flore-history", "title": "Flore history",
                  "encrypted_index": "Eo8BCioIAhgBIiQy"}),
            text(" "),
            text(TOKYO, {"type": "content_block_location", "cited_text": DOC_TOKYO[0],
                         "document_index": 1, "document_title": "Tokyo",
                         "start_block_index": 0, "end_block_index": 1}),
            text(" "),
            text(KYOTO, {"type": "search_result_location",
                         "cited_text": "Kyoto cafés adopted emoji menus 🍰☕ after 2015",
                         "search_result_index": 0, "source": "https://example.org/kyoto",
                         "title": "Kyoto cafés", "start_block_index": 0, "end_block_index": 0}),
            text(" "),
            text(TWO, {"type": "char_location",
                       "cited_text": "Il accueillit Sartre et Beauvoir pendant la guerre",
                       "document_index": 0, "document_title": "Flore",
                       "start_char_index": 41, "end_char_index": 91}),
            text(" "),
            text(VIENNA,
                 {"type": "page_location", "cited_text": "the first licence was granted",
                  "document_index": 2, "document_title": "Vienna",
                  "start_page_number": 1, "end_page_number": 2},
                 {"type": "char_location", "cited_text": "nowhere", "document_index": 7,
                  "start_char_index": 0, "end_char_index": 7},
                 {"type": "future_location", "cited_text": "?"}),
        ],
        "stop_reason": "end_turn",
    }
    return line(response, request, "anthropic-1")


def gemini_bytes(text: str, segment: str, after: int = 0) -> tuple[int, int]:
    """Gemini's UTF-8 byte offsets of `segment` in `text` (searched from code point `after`)."""
    start = text.index(segment, after)
    return len(text[:start].encode()), len(text[: start + len(segment)].encode())


GEMINI_TEXT = f"{FLORE} {TOKYO} {KYOTO}"


def gemini() -> dict[str, Any]:
    """Web and retrieved-context chunks; one segment backed by two chunks; a segment whose
    byte offsets run past the text, one cutting a character, one naming a missing chunk."""
    supports = []
    for segment, chunks in ((FLORE, [0, 1]), (TOKYO, [2]), (KYOTO, [1])):
        start, end = gemini_bytes(GEMINI_TEXT, segment)
        supports.append({"segment": {"startIndex": start, "endIndex": end, "text": segment},
                         "groundingChunkIndices": chunks, "confidenceScores": [0.9] * len(chunks)})
    supports[0]["segment"].pop("startIndex")  # 0 is omitted from proto3 JSON
    total = len(GEMINI_TEXT.encode())
    supports += [
        {"segment": {"startIndex": total - 4, "endIndex": total + 40},
         "groundingChunkIndices": [0]},
        {"segment": {"startIndex": len(FLORE.encode()) + 2, "endIndex": total},  # inside 東
         "groundingChunkIndices": [0]},
        {"segment": {"startIndex": 0, "endIndex": 5, "text": "Café"}, "groundingChunkIndices": [9]},
    ]
    response = {
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": GEMINI_TEXT}]},
            "finishReason": "STOP",
            "groundingMetadata": {
                "webSearchQueries": ["café history"],
                "groundingChunks": [
                    {"web": {"uri": "https://example.org/flore", "title": "example.org"}},
                    {"retrievedContext": {"uri": "gs://bucket/kyoto.txt", "title": "kyoto.txt",
                                          "text": DOC_KYOTO}},
                    {"retrievedContext": {"uri": "gs://bucket/tokyo.txt", "title": "tokyo.txt",
                                          "text": "".join(DOC_TOKYO)}},
                ],
                "groundingSupports": supports,
            },
        }],
    }
    request = {"contents": [{"role": "user", "parts": [{"text": "History of cafés?"}]}]}
    return line(response, request, "gemini-1")


def openai_responses() -> dict[str, Any]:
    link = "([example.org](https://example.org/flore?utm_source=openai))"
    text = f"{FLORE[:-1]} {link}. {KYOTO} Files: cafes.csv"
    start = text.index(link)
    csv = text.index("cafes.csv")
    response = {
        "id": "resp_1", "object": "response",
        "output": [
            {"type": "file_search_call", "id": "fs_1", "status": "completed",
             "queries": ["kyoto cafés"],
             "results": [{"file_id": "file-kyoto", "filename": "kyoto.txt", "score": 0.9,
                          "text": DOC_KYOTO}]},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": [
                 {"type": "url_citation", "start_index": start, "end_index": start + len(link),
                  "url": "https://example.org/flore?utm_source=openai", "title": "Flore"},
                 {"type": "file_citation", "file_id": "file-kyoto", "filename": "kyoto.txt",
                  "index": text.index(KYOTO) + len(KYOTO)},
                 {"type": "container_file_citation", "container_id": "cntr_1",
                  "file_id": "file-csv", "filename": "cafes.csv", "start_index": csv,
                  "end_index": csv + len("cafes.csv")},
             ]}]},
        ],
    }
    return line(response, {"input": "Café history?"}, "openai-responses-1")


def openai_chat() -> dict[str, Any]:
    link = "[example.org](https://example.org/kyoto)"
    text = f"{TOKYO} {KYOTO[:-1]} {link}."
    start = text.index(link)
    response = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{
        "index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": text, "annotations": [
            {"type": "url_citation", "url_citation": {
                "start_index": start, "end_index": start + len(link),
                "url": "https://example.org/kyoto", "title": "Kyoto"}}]}}]}
    return line(response, {"messages": [{"role": "user", "content": "Cafés?"}]}, "openai-chat-1")


def openai_assistants() -> dict[str, Any]:
    marker = "【4:0†flore.txt】"
    text = f"{FLORE[:-1]}{marker}. Also 【7:1†source】 says more."
    start = text.index(marker)
    response = {"id": "msg_1", "object": "thread.message", "role": "assistant", "content": [{
        "type": "text", "text": {"value": text, "annotations": [
            {"type": "file_citation", "text": marker, "start_index": start,
             "end_index": start + len(marker),
             "file_citation": {"file_id": "file-flore", "quote": "ouvrit en 1887 à Paris"}}]}}]}
    return line(response, None, "openai-assistants-1")


COHERE_TEXT = f"{FLORE} {KYOTO}"


def cohere() -> dict[str, Any]:
    flore, kyoto = COHERE_TEXT.index("1887"), COHERE_TEXT.index("emoji menus 🍰☕")
    response = {"id": "c1", "finish_reason": "COMPLETE", "message": {
        "role": "assistant",
        "content": [{"type": "text", "text": COHERE_TEXT}],
        "citations": [
            {"start": flore, "end": flore + 4, "text": "1887", "type": "TEXT_CONTENT",
             "sources": [{"type": "document", "id": "doc:0",
                          "document": {"id": "doc:0", "title": "Flore", "snippet": DOC_FLORE}}]},
            {"start": kyoto, "end": kyoto + len("emoji menus 🍰☕"), "text": "emoji menus 🍰☕",
             "sources": [
                 {"type": "document", "id": "doc:1",
                  "document": {"id": "doc:1", "title": "Kyoto", "snippet": DOC_KYOTO}},
                 {"type": "tool", "id": "search_cafes:0:2:0",
                  "tool_output": {"title": "menus", "text": "Emoji menus spread in 2015."}}]},
            {"start": 500, "end": 520, "text": "beyond", "sources": [
                {"type": "document", "id": "doc:0"}]},
        ]}}
    request = {"model": "command-a-03-2025",
               "messages": [{"role": "user", "content": "Café history?"}],
               "documents": [{"id": "doc:0", "data": {"title": "Flore", "snippet": DOC_FLORE}},
                             {"data": {"title": "Kyoto", "snippet": DOC_KYOTO}}]}
    return line(response, request, "cohere-1")


def cohere_tools() -> dict[str, Any]:
    """A tool-use turn: the citations' sources are the web search tool's results, each a
    `tool_output` with the page's url (no document id)."""
    flore = COHERE_TEXT.index(FLORE)
    page = {"title": "Café de Flore", "url": "https://example.org/flore", "text": DOC_FLORE}
    response = {"id": "c2", "finish_reason": "COMPLETE", "message": {
        "role": "assistant",
        "content": [{"type": "text", "text": COHERE_TEXT}],
        "citations": [
            {"start": flore, "end": flore + len(FLORE), "text": FLORE, "type": "TEXT_CONTENT",
             "sources": [{"type": "tool", "id": "web_search_0:0", "tool_output": page}]},
            {"start": COHERE_TEXT.index(KYOTO), "end": len(COHERE_TEXT), "text": KYOTO,
             "sources": [{"type": "tool", "id": "web_search_0:1", "tool_output": {
                 "url": "https://example.org/kyoto", "snippet": DOC_KYOTO}}]},
        ]}}
    request = {"model": "command-a-03-2025", "messages": [
        {"role": "user", "content": "Café history?"},
        {"role": "assistant", "tool_calls": [{"id": "web_search_0", "type": "function",
                                              "function": {"name": "web_search",
                                                           "arguments": "{\"query\": \"cafés\"}"}}]},
        {"role": "tool", "tool_call_id": "web_search_0", "content": [
            {"type": "document", "document": {"data": page}}]}]}
    return line(response, request, "cohere-2")


def perplexity() -> dict[str, Any]:
    content = f"<think>Let me check.</think>\n{FLORE}[1] {KYOTO}[2][3]"
    response = {"id": "p", "model": "sonar-reasoning", "object": "chat.completion",
                "citations": ["https://example.org/flore", "https://example.org/kyoto",
                              "https://example.org/menus"],
                "search_results": [
                    {"title": "Flore", "url": "https://example.org/flore", "date": "2024-05-01",
                     "snippet": DOC_FLORE},
                    {"title": "Kyoto", "url": "https://example.org/kyoto", "snippet": DOC_KYOTO},
                    {"title": "Menus", "url": "https://example.org/menus"}],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    return line(response, {"messages": [{"role": "user", "content": "Cafés?"}]}, "perplexity-1")


BEDROCK_TEXT = f"{FLORE} {TOKYO} {TWO}"


def bedrock() -> dict[str, Any]:
    def citation(segment: str, *references: dict[str, Any]) -> dict[str, Any]:
        start = BEDROCK_TEXT.index(segment)
        # `end` is the segment's last character (inclusive), as RetrieveAndGenerate sends it
        return {"generatedResponsePart": {"textResponsePart": {
            "text": segment, "span": {"start": start, "end": start + len(segment) - 1}}},
            "retrievedReferences": list(references)}

    def reference(uri: str, text: str, page: int | None = None) -> dict[str, Any]:
        metadata: dict[str, Any] = {"x-amz-bedrock-kb-source-uri": uri}
        if page:
            metadata["x-amz-bedrock-kb-document-page-number"] = page
        return {"content": {"text": text, "type": "TEXT"},
                "location": {"type": "S3", "s3Location": {"uri": uri}}, "metadata": metadata}

    response = {"sessionId": "s1", "output": {"text": BEDROCK_TEXT}, "citations": [
        citation(FLORE, reference("s3://kb/flore.pdf", DOC_FLORE, page=3)),
        citation(TOKYO, reference("s3://kb/tokyo.txt", DOC_TOKYO[0]),
                 {"content": {"text": "Tokyo cafés history."},
                  "location": {"type": "WEB", "webLocation": {"url": "https://example.org/t"}}}),
        citation(TWO, reference("s3://kb/flore.pdf", DOC_FLORE, page=3)),
        {"generatedResponsePart": {"textResponsePart": {"text": "missing", "span": {
            "start": 900, "end": 910}}}, "retrievedReferences": []},
    ]}
    return line(response, {"input": {"text": "Café history?"}}, "bedrock-1")


LANGCHAIN_TEXT = f"{TOKYO} {KYOTO}"


def langchain() -> dict[str, Any]:
    kyoto = LANGCHAIN_TEXT.index(KYOTO)
    message = {"type": "ai", "content_blocks": [
        {"type": "reasoning", "reasoning": "thinking"},
        {"type": "text", "text": LANGCHAIN_TEXT, "annotations": [
            {"type": "citation", "title": "Tokyo", "start_index": 0, "end_index": len(TOKYO),
             "cited_text": DOC_TOKYO[0]},
            {"type": "citation", "url": "https://example.org/kyoto", "title": "Kyoto",
             "start_index": kyoto, "end_index": kyoto + len(KYOTO),
             "cited_text": "emoji menus 🍰☕ after 2015"},
            {"type": "citation", "start_index": 0, "end_index": 3},
        ]}]}
    return line(message, None, "langchain-1")


# Every fixture above, by the provider whose adapter reads it.
BY_PROVIDER: dict[str, list[Any]] = {
    "anthropic": [anthropic],
    "openai": [openai_responses, openai_chat, openai_assistants],
    "gemini": [gemini],
    "cohere": [cohere, cohere_tools],
    "perplexity": [perplexity],
    "bedrock": [bedrock],
    "langchain": [langchain],
}
