"""Admission of a provider line never raises: every sample line of `fixtures`, mutated
structurally (any nested value replaced by a value of another type, keys deleted or added,
values wrapped in lists), becomes an `AnswerAccepted` or an `AnswerRejected` whose path is a
JSON path. Then one explicit regression test per crash the mutations found."""

from __future__ import annotations

import base64
import copy
import os
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.answers import AnswerAccepted, AnswerRejected
from services.ingest.answers import admit_provider
from tests.services.providers import fixtures as fx

Path = tuple[str | int, ...]

SAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "anthropic": ("anthropic", fx.anthropic()),
    "gemini": ("gemini", fx.gemini()),
    "openai_responses": ("openai", fx.openai_responses()),
    "openai_chat": ("openai", fx.openai_chat()),
    "openai_assistants": ("openai", fx.openai_assistants()),
    "cohere": ("cohere", fx.cohere()),
    "perplexity": ("perplexity", fx.perplexity()),
    "bedrock": ("bedrock", fx.bedrock()),
    "langchain": ("langchain", fx.langchain()),
}
# Shapes the fixtures do not show, so that mutations reach every branch of the adapters.
SAMPLES |= {
    "anthropic_tools": ("anthropic", fx.line(
        {"content": [
            {"type": "search_result", "source": "https://example.org/r", "title": "R",
             "content": [{"type": "text", "text": fx.DOC_KYOTO}]},
            {"type": "text", "text": fx.KYOTO, "citations": [
                {"type": "search_result_location", "search_result_index": 1,
                 "cited_text": "emoji menus"},
                {"type": "page_location", "document_index": 0, "start_page_number": 1}]}]},
        {"messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [
                {"type": "search_result", "source": "https://example.org/k", "title": "K",
                 "content": [{"type": "text", "text": fx.DOC_KYOTO}]},
                {"type": "document", "source": {"type": "base64", "media_type":
                                                "application/pdf", "data": "bm90IGEgcGRm"}}]},
            {"type": "text", "text": "Kyoto?"}]}]})),
    "gemini_sdk": ("gemini", fx.line(
        {"candidates": [{"content": {"parts": [{"text": "x", "thought": True},
                                               {"text": fx.KYOTO}]},
                         "grounding_metadata": {
                             "grounding_chunks": [{"retrieved_context": {
                                 "uri": "gs://b/k", "title": "k", "text": fx.DOC_KYOTO}}],
                             "grounding_supports": [{"segment": {
                                 "part_index": 1, "start_index": 0, "end_index": 5,
                                 "text": "Kyoto"}, "grounding_chunk_indices": [0]}]}}]},
        {"contents": "Kyoto?"})),
    "openai_chat_file_path": ("openai", fx.line(
        {"choices": [{"message": {"content": None, "annotations": [
            {"type": "file_path", "start_index": 0, "end_index": 0},
            {"type": "future_annotation"}]}}]},
        {"input": [{"role": "user", "content": [{"type": "input_text", "text": "Files?"}]}]})),
    "cohere_strings": ("cohere", fx.line(
        {"message": {"content": [{"type": "thinking", "thinking": "t"},
                                 {"type": "text", "text": fx.KYOTO}],
                     "citations": [{"start": 0, "end": 5, "text": "Kyoto", "content_index": 1,
                                    "type": "TEXT_CONTENT", "sources": []},
                                   {"start": 0, "end": 1, "type": "THINKING_CONTENT"}]}},
        {"documents": [fx.DOC_KYOTO, {"data": "plain"}, {"id": "n", "data": {"year": 2015}}],
         "messages": [{"role": "user", "content": [{"type": "text", "text": "Kyoto?"}]}]})),
    "perplexity_citations": ("perplexity", fx.line(
        {"citations": ["https://example.org/a"], "search_results": [],
         "choices": [{"message": {"content": f"{fx.KYOTO}[1]"}}]})),
    "langchain_blocks": ("langchain", fx.line(
        [{"type": "text", "text": fx.KYOTO, "annotations": [
            {"type": "citation", "title": "K", "cited_text": "emoji"},
            {"type": "non_standard"}]}])),
    "bedrock_locations": ("bedrock", fx.line(
        {"output": {"text": fx.KYOTO}, "citations": [
            {"generatedResponsePart": {"textResponsePart": {"text": "Kyoto",
                                                            "span": {"start": 0, "end": 4}}},
             "retrievedReferences": [
                 {"content": {"text": "a"}, "location": {"webLocation": {"url": "https://k"}},
                  "metadata": {"x-amz-bedrock-kb-document-page-number": 2.0}},
                 {"content": {"text": "b"}, "location": {
                     "customDocumentLocation": {"id": "doc-1"}}},
                 {"content": {"text": "c"}}]}]},
        {"input": {"text": "Kyoto?"}})),
}
# CITEFLOW_PROVIDER_FUZZ_EXAMPLES=2000 to hunt; the default keeps the suite fast
EXAMPLES = int(os.environ.get("CITEFLOW_PROVIDER_FUZZ_EXAMPLES", "300"))


def _walk(value: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    """Every (path, value) in a JSON value, the root included."""
    found = [(path, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _walk(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _walk(item, (*path, i))
    return found


def _strings() -> list[str]:
    """Every key and short string of the samples: the type tags and field names the adapters
    branch on, so a mutation can turn one kind of block or citation into another."""
    seen: set[str] = set()
    for _, line in SAMPLES.values():
        for _, value in _walk(line):
            if isinstance(value, dict):
                seen.update(value)
            elif isinstance(value, str) and len(value) <= 40:
                seen.add(value)
    return sorted(seen)


STRINGS = _strings()
_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False)
    | st.sampled_from(STRINGS),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(STRINGS), inner, max_size=3),
    max_leaves=6,
)
# A replacement is drawn by JSON type first (one other than the value's), then a value of it.
BY_TYPE: dict[type, st.SearchStrategy[Any]] = {
    int: st.sampled_from([0, 1, 2, -1, 10**6]) | st.integers(-(2**63), 2**63 - 1),
    float: st.sampled_from([0.0, 1.5, -2.5]) | st.floats(allow_nan=False, allow_infinity=False),
    str: st.sampled_from(STRINGS) | st.text(st.characters(codec="utf-8"), max_size=6),
    type(None): st.none(),
    list: st.lists(_values, max_size=3),
    dict: st.dictionaries(st.sampled_from(STRINGS), _values, max_size=3),
    bool: st.booleans(),
}


def _set(root: Any, path: Path, value: Any) -> Any:
    """`root` with the value at `path` replaced (the root itself when `path` is empty)."""
    if not path:
        return value
    parent = root
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return root


def _delete(root: Any, path: Path) -> Any:
    parent = root
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    return root


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    """A sample line with one to three structural mutations."""
    name = draw(st.sampled_from(sorted(SAMPLES)))
    provider, line = SAMPLES[name]
    line = copy.deepcopy(line)
    for _ in range(draw(st.integers(1, 3))):
        places = _walk(line)
        path, value = draw(st.sampled_from(places))
        kind = draw(st.sampled_from(["replace", "delete", "wrap", "add"]))
        if kind == "delete" and path:
            line = _delete(line, path)
        elif kind == "wrap":
            line = _set(line, path, [value])
        elif kind == "add" and isinstance(value, dict):
            value[draw(st.sampled_from(STRINGS))] = draw(_values)
        else:
            other = draw(st.sampled_from([kind for kind in BY_TYPE if kind is not type(value)]))
            line = _set(line, path, draw(BY_TYPE[other]))
    return name, provider, line


def _admit(provider: str, line: Any) -> AnswerAccepted | AnswerRejected:
    raw = orjson.dumps(line)
    result = admit_provider(raw, provider, event_id="e")
    if isinstance(result, AnswerRejected):
        assert result.code and result.message
        assert result.path.startswith("$"), result.path
        assert base64.b64decode(result.original_base64) == raw
    else:
        assert isinstance(result, AnswerAccepted)
    return result


@settings(max_examples=EXAMPLES, deadline=None)
@given(mutated())
def test_mutated_provider_lines_are_admitted_or_rejected(case: tuple[str, str, Any]) -> None:
    _, provider, line = case
    _admit(provider, line)


# One value of each JSON type, and shapes the adapters branch on.
SWEEP: list[Any] = [5, -1, 1.5, "x", None, True, [], {}, [{}], {"type": "text"}]


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_single_mutation_is_admitted_or_rejected(name: str) -> None:
    """Exhaustively, what the random mutations reach only by chance: every value of the sample
    replaced by each of `SWEEP`, wrapped in a list, and deleted, one at a time."""
    provider, line = SAMPLES[name]
    for path, value in _walk(line):
        for new in [*SWEEP, [value]]:
            _admit(provider, _set(copy.deepcopy(line), path, copy.deepcopy(new)))
        if path:
            _admit(provider, _delete(copy.deepcopy(line), path))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_unmutated_samples_are_accepted(name: str) -> None:
    provider, line = SAMPLES[name]
    assert isinstance(_admit(provider, line), AnswerAccepted)


# One regression per crash the mutations found: (sample, mutation, expected rejection path).
Mutation = Callable[[dict[str, Any]], None]
CRASHES: list[tuple[str, Mutation, str]] = [
    ("gemini", lambda line: _set(line, ("request", "contents", 0, "parts"), 5),
     "$.request.contents[0].parts"),
    ("anthropic", lambda line: _set(line, ("request", "messages", 0, "content", 3, "content"), 1.5),
     "$.request.messages[0].content[3].content"),
    # the same search_result reader, on a response block and inside a request's tool_result
    ("anthropic_tools", lambda line: _set(line, ("response", "content", 0, "content"), 7),
     "$.response.content[0].content"),
    ("anthropic_tools",
     lambda line: _set(line, ("request", "messages", 0, "content", 0, "content", 0, "content"),
                       True),
     "$.request.messages[0].content[0].content[0].content"),
    # the turn read is the last user turn: its own index, not its place from the end
    ("gemini", lambda line: line["request"]["contents"].append({"role": "user", "parts": True}),
     "$.request.contents[1].parts"),
]


@pytest.mark.parametrize(("name", "mutate", "path"), CRASHES,
                         ids=[path for _, _, path in CRASHES])
def test_crashes_found_are_rejected_with_their_path(name: str, mutate: Mutation, path: str) -> None:
    provider, line = SAMPLES[name]
    line = copy.deepcopy(line)
    mutate(line)
    result = _admit(provider, line)
    assert isinstance(result, AnswerRejected)
    assert (result.code, result.path) == ("invalid_provider_response", path)
    assert result.message.startswith(f"{path}: expected ")
