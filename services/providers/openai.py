"""OpenAI: the Responses API (`output_text` annotations `url_citation`, `file_citation`,
`container_file_citation`, with `file_search_call` results as source text), Chat Completions
(`message.annotations` of `url_citation`) and Assistants messages (`file_citation`
annotations over the `【4:0†source】` markers in the text, with the file's quote).

Offsets (`start_index`, `end_index`, `index`) count characters of their text part: read as
code points, shifted by the part's place in the joined answer. A `url_citation` or
`container_file_citation` covers link text the model wrote and an Assistants `file_citation`
covers its `【…】` marker: visible markers, shown as chips. A Responses `file_citation` is a
point (`index`) after the text it supports.
"""

from __future__ import annotations

from typing import Any

from services.providers.draft import (
    Draft,
    ProviderError,
    arr,
    integer,
    last_user_text,
    obj,
    optional_str,
    string,
)


def _file(draft: Draft, file_id: str | None, filename: str | None) -> int | None:
    if file_id is None and filename is None:
        return None
    return draft.source(("file", file_id or filename), title=filename, doc_id=file_id)


def _url(draft: Draft, url: str | None, title: str | None) -> int | None:
    if url is None:
        return None
    return draft.source(("url", url), kind="web", url=url, title=title)


def _annotation(draft: Draft, offset: int, note: dict[str, Any], path: str) -> None:
    """One annotation of a text part starting at `offset` in the answer."""
    kind = note.get("type")
    if kind == "file_path":
        return  # a generated file's download link, not a citation
    if kind == "url_citation":
        nested = note.get("url_citation")  # Chat Completions nests the fields
        fields: dict[str, Any] = nested if isinstance(nested, dict) else note
        url = optional_str(fields.get("url"))
        index = _url(draft, url, optional_str(fields.get("title")))
        start = integer(fields.get("start_index"), f"{path}.start_index")
        end = integer(fields.get("end_index"), f"{path}.end_index")
        draft.cite(index, offset + start, offset + end, visible=True, label=url,
                   problem=None if index is not None else "url_citation without a url")
        return
    if kind == "container_file_citation":
        index = _file(draft, optional_str(note.get("file_id")), optional_str(note.get("filename")))
        start = integer(note.get("start_index"), f"{path}.start_index")
        end = integer(note.get("end_index"), f"{path}.end_index")
        draft.cite(index, offset + start, offset + end, visible=True,
                   label=optional_str(note.get("filename")))
        return
    if kind == "file_citation":
        cited = note.get("file_citation")
        if isinstance(cited, dict):  # Assistants: over the `【4:0†source】` marker
            index = _file(draft, optional_str(cited.get("file_id")), None)
            start = integer(note.get("start_index"), f"{path}.start_index")
            end = integer(note.get("end_index"), f"{path}.end_index")
            draft.cite(index, offset + start, offset + end, visible=True,
                       quote=optional_str(cited.get("quote")),
                       label=optional_str(cited.get("file_id")))
            return
        index = _file(draft, optional_str(note.get("file_id")), optional_str(note.get("filename")))
        point = offset + integer(note.get("index"), f"{path}.index")
        draft.cite(index, point, point, label=optional_str(note.get("filename")))
        return
    draft.cite(None, offset, offset, problem=f"unknown annotation type {kind!r}")


def _text_part(draft: Draft, text: str, annotations: Any, path: str) -> None:
    offset = draft.add_text(text)
    for a, note in enumerate(arr(annotations, f"{path}.annotations")):
        _annotation(draft, offset, obj(note, f"{path}.annotations[{a}]"), f"{path}.annotations[{a}]")


def _responses(draft: Draft, output: list[Any]) -> None:
    for i, item in enumerate(output):
        item = obj(item, f"$.response.output[{i}]")
        if item.get("type") != "file_search_call":
            continue
        for result in arr(item.get("results"), f"$.response.output[{i}].results"):
            if isinstance(result, dict):
                index = _file(draft, optional_str(result.get("file_id")),
                              optional_str(result.get("filename")))
                if index is not None and isinstance(result.get("text"), str):
                    draft.add_chunk(index, result["text"])
    for i, item in enumerate(output):
        if item.get("type") != "message":
            continue
        for c, part in enumerate(arr(item.get("content"), f"$.response.output[{i}].content")):
            path = f"$.response.output[{i}].content[{c}]"
            part = obj(part, path)
            if part.get("type") == "output_text":
                _text_part(draft, string(part.get("text"), f"{path}.text"),
                           part.get("annotations"), path)


def normalize(draft: Draft, response: Any, request: Any) -> None:
    """Fill `draft` from a Responses, Chat Completions or Assistants message response."""
    body = obj(response, "$.response")
    if isinstance(request, dict):
        query = request.get("input")
        draft.query = query if isinstance(query, str) else last_user_text(
            query if isinstance(query, list) else request.get("messages")
        )
    if "output" in body:
        _responses(draft, arr(body["output"], "$.response.output", optional=False))
    elif "choices" in body:
        choices = arr(body["choices"], "$.response.choices", optional=False)
        if not choices:
            raise ProviderError("no choices", "$.response.choices")
        message = obj(obj(choices[0], "$.response.choices[0]").get("message"),
                      "$.response.choices[0].message")
        content = message.get("content") or ""
        _text_part(draft, string(content, "$.response.choices[0].message.content"),
                   message.get("annotations"), "$.response.choices[0].message")
    elif "content" in body:
        for c, part in enumerate(arr(body["content"], "$.response.content", optional=False)):
            path = f"$.response.content[{c}]"
            part = obj(part, path)
            if part.get("type") == "text":
                text = obj(part.get("text"), f"{path}.text")
                _text_part(draft, string(text.get("value"), f"{path}.text.value"),
                           text.get("annotations"), f"{path}.text")
    else:
        raise ProviderError(
            "neither a Responses (`output`), Chat Completions (`choices`) nor an Assistants "
            "message (`content`) response"
        )
