"""Formatted answers for the judging tests, made by the real pipeline (services.pipeline)."""

from __future__ import annotations

from typing import Any

import orjson

from schemas.formatted import AnswerFormatted
from services.pipeline import process_answer

TOWER = ("The Eiffel Tower was completed in 1889 for the World Fair in Paris. "
         "It is 330 metres tall.")
PARIS = "Paris is the capital of France. The Eiffel Tower stands in Paris on the Champ de Mars."


def formatted(text: str, sources: list[str], **extra: Any) -> AnswerFormatted:
    """`text` citing `sources` (numbered from 1), through the five stages."""
    raw = orjson.dumps({"answer_id": extra.pop("answer_id", "a1"), "text": text,
                        "sources": [{"index": n, "title": f"Source {n}",
                                     "chunks": [{"text": body}]}
                                    for n, body in enumerate(sources, 1)], **extra})
    result = process_answer(raw, event_id="test")
    assert isinstance(result, AnswerFormatted), result
    return result


def tower_answer(**extra: Any) -> AnswerFormatted:
    """Three citations: supported, unsupported (a claim the source does not hold), supported."""
    return formatted("The Eiffel Tower was finished in 1889 [1]. It was painted green by "
                     "Napoleon in 1920 [1]. The tower is in Paris [2].", [TOWER, PARIS], **extra)
