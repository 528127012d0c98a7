"""LangChain standard content blocks (langchain-core 1.x `content_blocks`): `text` blocks with
`annotations` of type `citation` (`url`, `title`, `start_index`, `end_index`, `cited_text`),
which every provider LangChain speaks is translated into.

The response is a serialised AI message (`content_blocks`, else a `content` list) or the
list of blocks itself. `start_index`/`end_index` count characters of the block's text (Python
string indexes: code points), shifted by the block's place in the joined answer; a citation
without them supports its whole block. `cited_text` becomes a verbatim claim.
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
    string,
)


def _blocks(response: Any) -> list[Any]:
    if isinstance(response, list):
        return response
    body = obj(response, "$.response")
    for name in ("content_blocks", "content"):
        if isinstance(body.get(name), list):
            return list(body[name])
        if name == "content" and isinstance(body.get(name), str):
            return [{"type": "text", "text": body[name]}]
    raise ProviderError("an AI message needs `content_blocks` or `content`")


def normalize(draft: Draft, response: Any, request: Any) -> None:
    """Fill `draft` from a LangChain AI message (or its content blocks)."""
    del request  # the sources are named in the citations themselves
    for b, block in enumerate(_blocks(response)):
        path = f"$.response.content_blocks[{b}]"
        block = obj(block, path)
        if block.get("type") != "text":
            continue
        text = string(block.get("text"), f"{path}.text")
        offset = draft.add_text(text)
        for a, note in enumerate(arr(block.get("annotations"), f"{path}.annotations")):
            where = f"{path}.annotations[{a}]"
            note = obj(note, where)
            if note.get("type") != "citation":
                continue
            url, title = optional_str(note.get("url")), optional_str(note.get("title"))
            key = url or title
            index = None if key is None else draft.source(
                ("citation", key), kind="web" if url else "document", url=url, title=title,
            )
            start = integer(note.get("start_index"), f"{where}.start_index", 0)
            end = integer(note.get("end_index"), f"{where}.end_index", len(text))
            draft.cite(index, offset + start, offset + end,
                       quote=optional_str(note.get("cited_text")), label=key,
                       problem=None if index is not None else "the citation names no source")
