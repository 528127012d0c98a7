"""Answers at the door's limits: the longest text, the most sources, the most chunks, the most
citations, and all of them together, each as heavy as ingest accepts (services.ingest.budget)."""

from __future__ import annotations

import random
from typing import Any

from schemas.answers import MAX_SOURCES, MAX_TEXT_CHARS, AnswerSubmitted
from services.ingest.budget import MAX_WEIGHT, answer_weight

_WORDS = ("trial cohort measure outcome passage source evidence latency broker marker review "
          "sample signal record chapter section anchor quote finding method result").split()
# (text characters, words per sentence, citations, sources, chunks per source); the sources
# of `unpunctuated` are a few long chunks without a sentence end.
SHAPES: dict[str, tuple[int, int, int | None, int, int]] = {
    "text": (MAX_TEXT_CHARS, 14, 100, 3, 2),
    "unpunctuated": (MAX_TEXT_CHARS, 14, 100, 3, 2),
    "sources": (4_000, 14, 30, MAX_SOURCES, 1),
    "chunks": (4_000, 14, 30, 4, 5_000),
    "citations": (0, 3, None, 10, 2),
    "all": (MAX_TEXT_CHARS, 3, None, MAX_SOURCES, 6),
}
_SLACK = 4096  # under the limit by this much, for the metadata a gateway stamps in


def _sentence(rng: random.Random, words: int) -> str:
    body = " ".join(rng.choice(_WORDS) for _ in range(words))
    return body[0].upper() + body[1:]


def _text(rng: random.Random, chars: int, words: int, citations: int, sources: int) -> str:
    """Sentences of `words` words, the first `citations` of them ending in a marker, up to
    `chars` characters (or just the cited sentences when `chars` is 0)."""
    parts: list[str] = []
    size = 0
    while True:
        cited = len(parts) < citations
        sentence = _sentence(rng, words) + (f" [{len(parts) % sources + 1}]." if cited else ".")
        if (size + len(sentence) + 1 > chars) and not (chars == 0 and cited):
            return " ".join(parts)
        parts.append(sentence)
        size += len(sentence) + 1


def _chunk_text(rng: random.Random, chars: int, punctuated: bool) -> str:
    """Sentences of 12 words up to about `chars` characters (words alone, not
    `punctuated`)."""
    if not chars:
        return ""
    if not punctuated:
        return " ".join(rng.choice(_WORDS) for _ in range(max(1, chars // 7)))
    return " ".join(_sentence(rng, 12) + "." for _ in range(max(1, chars // 90)))


def _answer(kind: str, text: str, sources: int, chunks: int, chunk_chars: int) -> dict[str, Any]:
    rng = random.Random(sources * 31 + chunks)
    punctuated = kind != "unpunctuated"
    return {
        "answer_id": f"limit-{kind}",
        "query": f"An answer at the limit: {kind}",
        "text": text,
        "sources": [
            {"index": i, "kind": "web", "url": f"https://example.org/limit/{i}",
             "title": f"Source {i}",
             "chunks": [{"chunk_id": f"s{i}c{k}", "text": _chunk_text(rng, chunk_chars, punctuated)}
                        for k in range(chunks)]}
            for i in range(1, sources + 1)
        ],
    }


def weight_of(data: dict[str, Any]) -> int:
    """The weight of an answer's data object, measured and counted."""
    return answer_weight(AnswerSubmitted.model_validate(data), 0).total


def limit_answer(kind: str, limit: int = MAX_WEIGHT) -> dict[str, Any]:
    """The answer of shape `kind` (SHAPES) as heavy as `limit` allows, less a little slack:
    the citations the text can carry (all it can, for `citations` and `all`), then its
    sources' chunks filled with words."""
    chars, words, citations, sources, chunks = SHAPES[kind]
    budget = limit - _SLACK
    if citations is None:  # as many as fit beside the text and empty chunks
        low, high = 0, budget // 2048
        while low < high:
            middle = (low + high + 1) // 2
            text = _text(random.Random(1), chars, words, middle, sources)
            if weight_of(_answer(kind, text, sources, chunks, 0)) <= budget * 0.97:
                low = middle
            else:
                high = middle - 1
        citations = low
    text = _text(random.Random(1), chars, words, citations, sources)
    empty = weight_of(_answer(kind, text, sources, chunks, 0))
    per_chunk = max(0, (budget - empty) // (sources * chunks))
    data = _answer(kind, text, sources, chunks, per_chunk)
    while weight_of(data) > budget:
        per_chunk = per_chunk * 9 // 10
        data = _answer(kind, text, sources, chunks, per_chunk)
    return data
