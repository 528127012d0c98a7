"""Deterministic benchmark inputs: the benchmark answer (1,000 words, 50 citations,
10 sources of two 1,000-char chunks each, 20 verbatim answer units)."""

from __future__ import annotations

import random
from typing import Any

_WORDS = (
    "retrieval evidence model passage source claim answer study result method data analysis "
    "measure effect patient trial outcome sample cohort protocol finding review system signal "
    "latency throughput broker partition consumer producer offset commit record event stream "
    "document chapter page section quote span locator anchor highlight reader citation marker"
).split()


def _sentence(rng: random.Random, words: int) -> str:
    body = " ".join(rng.choice(_WORDS) for _ in range(words))
    return body[0].upper() + body[1:]


def _chunk_text(rng: random.Random, length: int) -> str:
    parts: list[str] = []
    size = 0
    while size < length:
        sentence = _sentence(rng, rng.randint(8, 16)) + "."
        parts.append(sentence)
        size += len(sentence) + 1
    return " ".join(parts)[:length].rstrip() + "."


def bench_answer(
    answer_id: str = "bench-0",
    *,
    words: int = 1000,
    citations: int = 50,
    sources: int = 10,
    chunks_per_source: int = 2,
    chunk_chars: int = 1000,
    verbatim_units: int = 20,
    seed: int = 7,
) -> dict[str, Any]:
    """An `answer.submitted` v1 data object shaped like the benchmark answer."""
    rng = random.Random(seed)
    source_list: list[dict[str, Any]] = []
    for index in range(1, sources + 1):
        chunk_list = []
        offset = 0
        for position in range(chunks_per_source):
            text = _chunk_text(rng, chunk_chars)
            chunk_list.append(
                {
                    "chunk_id": f"doc{index}-c{position}",
                    "text": text,
                    "section_id": f"doc{index}-s1",
                    "start_char": offset,
                }
            )
            offset += len(text) + 1
        source_list.append(
            {
                "index": index,
                "kind": "document",
                "doc_id": f"doc{index}",
                "title": f"Study {index} of {_sentence(rng, 4).lower()}",
                "format": "text",
                "score": round(rng.uniform(0.2, 12.0), 3),
                "authors": [f"Author{index}{k} A" for k in range(rng.randint(1, 5))],
                "journal": "Journal of Benchmarks",
                "year": 2000 + index,
                "doi": f"10.1000/bench.{index}",
                "chunks": chunk_list,
            }
        )

    # One sentence per citation, plus uncited sentences to reach `words`.
    sentences: list[str] = []
    units: list[dict[str, Any]] = []
    used_words = 0
    for number in range(citations):
        source = source_list[number % sources]
        cite = f"[{source['index']}]"
        if number < verbatim_units:
            chunk = source["chunks"][number % chunks_per_source]["text"]
            words_of_chunk = chunk.split(" ")
            first = rng.randint(0, max(0, len(words_of_chunk) - 16))
            quote = " ".join(words_of_chunk[first : first + rng.randint(8, 14)]).strip(" .")
            text = f"The study states that \u201c{quote}\u201d {cite}."
            units.append(
                {
                    "id": f"U{number + 1}",
                    "text": text,
                    "kind": "verbatim",
                    "quote": quote,
                    "source_indexes": [source["index"]],
                }
            )
        else:
            text = f"{_sentence(rng, rng.randint(12, 22))} {cite}."
            units.append(
                {
                    "id": f"U{number + 1}",
                    "text": text,
                    "kind": "derived",
                    "quote": None,
                    "source_indexes": [source["index"]],
                }
            )
        sentences.append(text)
        used_words += len(text.split())
    while used_words < words:
        text = _sentence(rng, rng.randint(12, 22)) + "."
        sentences.insert(rng.randint(0, len(sentences)), text)
        used_words += len(text.split())
    return {
        "answer_id": answer_id,
        "query": "What do the studies say about retrieval evidence and citation latency?",
        "text": " ".join(sentences),
        "sources": source_list,
        "answer_units": units,
        "options": {"min_citation_score": 0.0, "max_citations": 10},
        "metadata": {"tenant": "bench"},
    }
