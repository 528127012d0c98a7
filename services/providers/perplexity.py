"""Perplexity chat completions: the answer cites with `[n]` markers in its text; `n` is the
1-based position in `search_results` (title, URL, date, snippet) or, in older responses,
in `citations` (URLs only). The markers are read by the citations stage like any `[n]`; a
reasoning model's leading `<think>…</think>` section is not answer text.
"""

from __future__ import annotations

import re
from typing import Any

from services.providers.draft import (
    Draft,
    ProviderError,
    arr,
    last_user_text,
    obj,
    optional_str,
    string,
)

_THINKING = re.compile(r"\s*<think>.*?</think>\s*", re.DOTALL)


def normalize(draft: Draft, response: Any, request: Any) -> None:
    """Fill `draft` from a Perplexity response."""
    body = obj(response, "$.response")
    choices = arr(body.get("choices"), "$.response.choices", optional=False)
    if not choices:
        raise ProviderError("no choices", "$.response.choices")
    message = obj(obj(choices[0], "$.response.choices[0]").get("message"),
                  "$.response.choices[0].message")
    text = string(message.get("content") or "", "$.response.choices[0].message.content")
    thinking = _THINKING.match(text)
    draft.add_text(text[thinking.end() :] if thinking else text)
    results = arr(body.get("search_results"), "$.response.search_results")
    if results:
        for r, result in enumerate(results):
            result = obj(result, f"$.response.search_results[{r}]")
            index = draft.source(("result", r), kind="web", url=optional_str(result.get("url")),
                                 title=optional_str(result.get("title")))
            if isinstance(result.get("snippet"), str):
                draft.add_chunk(index, result["snippet"])
    else:
        for u, url in enumerate(arr(body.get("citations"), "$.response.citations")):
            draft.source(("result", u), kind="web", url=string(url, f"$.response.citations[{u}]"))
    if isinstance(request, dict):
        draft.query = last_user_text(request.get("messages"))
