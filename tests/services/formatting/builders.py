"""Builders of `answer.resolved` inputs for the formatting tests, made through the real
models (so every fixture is a valid event), with exact offsets for markers and units."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from schemas.spans import AnswerResolved, AnswerWord, Support
from services.text.offsets import Utf16Index


@dataclass(frozen=True)
class Mark:
    """A citation marker (or a cluster of them) as written in the answer."""

    marker: str
    ids: tuple[int, ...]
    valid: bool = True
    problem: str | None = None


@dataclass(frozen=True)
class Unit:
    """An answer unit over `parts`; verbatim units cite `span` = (source index, start, end)
    of the first chunk of that source."""

    id: str
    parts: tuple[str | Mark, ...]
    kind: str = "derived"
    span: tuple[int, int, int] | None = None


Part = str | Mark | Unit


@dataclass
class _Text:
    text: list[str] = field(default_factory=list)
    length: int = 0
    marks: list[tuple[int, int, Mark]] = field(default_factory=list)
    units: list[tuple[int, int, Unit]] = field(default_factory=list)

    def add(self, part: Part) -> None:
        if isinstance(part, Unit):
            start = self.length
            for inner in part.parts:
                self.add(inner)
            self.units.append((start, self.length, part))
            return
        piece = part.marker if isinstance(part, Mark) else part
        if isinstance(part, Mark):
            self.marks.append((self.length, self.length + len(piece), part))
        self.text.append(piece)
        self.length += len(piece)


def source(index: int, **fields: Any) -> dict[str, Any]:
    """A source dict with sensible defaults and one chunk."""
    data: dict[str, Any] = {
        "index": index,
        "kind": "document",
        "doc_id": f"doc{index}",
        "title": f"Study {index}",
        "authors": [f"Author{index} A", f"Writer{index} B"],
        "journal": "Journal of Tests",
        "year": 2020 + index,
        "format": "text",
        "score": float(index),
        "chunks": [
            {
                "chunk_id": f"doc{index}-c0",
                "text": f"Source {index} says the sky is blue and water is wet. " * 5,
                "section_id": f"doc{index}-s1",
                "start_char": 0,
            }
        ],
    }
    data.update(fields)
    return data


def ama(data: dict[str, Any]) -> str:
    """A reference string from source metadata (the shape the citations stage makes)."""
    authors = ", ".join(data.get("authors") or [])
    parts = [p for p in (authors, data.get("title"), data.get("journal")) if p]
    return ". ".join(parts) + f". {data.get('year')}."


def build_resolved(
    parts: list[Part],
    sources: list[dict[str, Any]],
    *,
    query: str | None = "What colour is the sky?",
    renderings: list[str] | None = None,
    answer_id: str = "answer-1",
    references: dict[str, str] | None = None,
) -> AnswerResolved:
    """An AnswerResolved whose text is `parts` joined, with citations, one cluster per
    Mark, one sentence, the units, scores for every source and AMA references."""
    built = _Text()
    for part in parts:
        built.add(part)
    text = "".join(built.text)
    utf16 = Utf16Index(text)
    by_index = {s["index"]: s for s in sources}
    citations, clusters = [], []
    for cluster_index, (start, end, mark) in enumerate(built.marks):
        position = {
            "start": start,
            "end": end,
            "start_utf16": utf16(start),
            "end_utf16": utf16(end),
        }
        clusters.append(
            {**position, "marker": mark.marker, "citation_ids": list(mark.ids)}
        )
        for cid in mark.ids:
            valid = mark.valid and cid in by_index
            citations.append(
                {
                    **position,
                    "id": cid,
                    "marker": mark.marker,
                    "source_index": cid if cid in by_index else None,
                    "valid": valid,
                    "problem": None
                    if valid
                    else (mark.problem or f"no source [{cid}]"),
                    "cluster_index": cluster_index,
                }
            )
    units = [
        _unit(start, end, unit, text, by_index, utf16)
        for start, end, unit in built.units
    ]
    counts = {
        i: sum(1 for c in citations if c["valid"] and c["id"] == i) for i in by_index
    }
    ranked = sorted(by_index, key=lambda i: -(by_index[i].get("score") or 0))
    scores = [
        {
            "index": i,
            "retriever_score": by_index[i].get("score"),
            "score": round(1.0 / (rank + 1), 3),
            "rank": rank + 1,
            "eligible": True,
            "cited": counts[i] > 0,
            "citation_count": counts[i],
            "explanation": {"parts": {}, "weights": {}, "text": "test"},
        }
        for rank, i in enumerate(ranked)
    ]
    problems = [
        {
            "code": "invalid_citation",
            "message": c["problem"],
            "start": c["start"],
            "end": c["end"],
        }
        for c in citations
        if not c["valid"]
    ]
    options: dict[str, Any] = {}
    if renderings is not None:
        options["renderings"] = renderings
    return AnswerResolved.model_validate(
        {
            "answer": {
                "answer_id": answer_id,
                "query": query,
                "text": text,
                "sources": sources,
                "options": options or None,
                "metadata": {"tenant": "t1"},
            },
            "scores": scores,
            "passage_sources": ranked,
            "extraction": {
                "citations": citations,
                "clusters": clusters,
                "sentences": [
                    {
                        "index": 0,
                        "text": text,
                        "start": 0,
                        "end": len(text),
                        "start_utf16": 0,
                        "end_utf16": utf16(len(text)),
                        "citation_ids": [c["id"] for c in citations],
                    }
                ],
                "citation_map": {
                    str(c["id"]): [{"sentence_index": 0, "sentence_text": text}]
                    for c in citations
                },
                "sentence_map": {"0": [c["id"] for c in citations]},
                "references": references
                if references is not None
                else {str(i): ama(s) for i, s in by_index.items()},
                "problems": problems,
            },
            "resolution": {
                "units": units,
                "links": [],
                "problems": [{"code": "quote_not_found", "message": "test problem"}],
            },
        }
    )


def _unit(start, end, unit, text, by_index, utf16) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": unit.id,
        "text": text[start:end],
        "kind": unit.kind,
        "start": start,
        "end": end,
        "start_utf16": utf16(start),
        "end_utf16": utf16(end),
    }
    if unit.span is not None:
        index, s_start, s_end = unit.span
        chunk = by_index[index]["chunks"][0]
        data["source_spans"] = [
            {
                "doc_id": by_index[index].get("doc_id"),
                "section_id": chunk["section_id"],
                "source_index": index,
                "chunk_id": chunk["chunk_id"],
                "start_char": s_start,
                "end_char": s_end,
                "quote": chunk["text"][s_start:s_end],
            }
        ]
    else:
        data["supporting_sources"] = [f"doc{i}" for i in by_index]
    return data


def with_missing(resolved: AnswerResolved, words: list[tuple[int, int]]) -> AnswerResolved:
    """`resolved` with every valid citation judged `partial`, its source lacking `words`
    (`[start, end)` in the answer text)."""
    text = resolved.answer.text
    missing = [AnswerWord(text=text[start:end], start=start, end=end) for start, end in words]
    resolved.resolution.support = [
        Support(verdict="partial", score=0.5, judge="lexical", missing=[w.text for w in missing],
                missing_words=missing) if citation.valid else None
        for citation in resolved.extraction.citations
    ]
    return resolved
