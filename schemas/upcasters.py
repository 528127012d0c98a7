"""The upcaster chain: an old event version in, the current version out.

Each upcaster lifts `data` of one event name from version N to N+1 and is a pure
function of the dict. A consumer runs the chain before validation, so replaying an
old topic works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Data = dict[str, Any]
Upcaster = Callable[[Data], Data]


def _answer_submitted_v0_to_v1(data: Data) -> Data:
    """v0 was the seed parser's shape: `question`/`answer`, sources with one `content`
    string and a `relevance` score, options at the top level."""
    raw_sources = data.get("sources")
    sources: Any = raw_sources if not isinstance(raw_sources, list) else []
    # A mistyped `sources` passes through unchanged so that validation reports it.
    for position, source in enumerate(raw_sources if isinstance(raw_sources, list) else [], 1):
        if not isinstance(source, dict):
            sources.append(source)  # left for validation to report
            continue
        lifted = {k: v for k, v in source.items() if k not in ("id", "content", "relevance")}
        lifted["index"] = source.get("id", position)
        if "relevance" in source:
            lifted["score"] = source["relevance"]
        if source.get("content") is not None:
            lifted["chunks"] = [{"text": source["content"]}]
        sources.append(lifted)
    options = {
        key: data[key] for key in ("min_citation_score", "max_citations") if key in data
    }
    lifted_answer: Data = {
        "answer_id": data.get("answer_id"),
        "query": data.get("question"),
        "text": data.get("answer"),
        "sources": sources,
        "metadata": data.get("metadata"),
    }
    if options:
        lifted_answer["options"] = options
    return lifted_answer


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("answer.submitted", 0): _answer_submitted_v0_to_v1,
}


class UpcastError(ValueError):
    """No upcaster chain leads from the given version to the current one."""


def upcast(name: str, version: int, current: int, data: Data) -> Data:
    """Run `data` of event `name` from `version` up to `current`."""
    while version < current:
        step = UPCASTERS.get((name, version))
        if step is None:
            raise UpcastError(f"no upcaster for {name} v{version} -> v{version + 1}")
        data = step(data)
        version += 1
    return data
