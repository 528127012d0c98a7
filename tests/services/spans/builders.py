"""Builders of `answer.cited` inputs for the spans tests, made through the real models."""

from __future__ import annotations

import re
from typing import Any

from schemas.answers import AnswerSubmitted
from schemas.citations import (
    AnswerCited,
    Citation,
    CitationExtraction,
    Sentence,
    SupportingPassage,
)
from schemas.scoring import ScoreExplanation, SourceScore
from services.text.offsets import Utf16Index

_MARKER = re.compile(r"\[(\d+)\]")


def source(index: int, *chunks: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A source data object with its chunks."""
    return {"index": index, "doc_id": f"doc{index}", "chunks": list(chunks), **fields}


def chunk(text: str, **fields: Any) -> dict[str, Any]:
    """A chunk data object."""
    return {"text": text, **fields}


def _score(index: int) -> SourceScore:
    return SourceScore(
        index=index,
        score=round(1.0 / index, 3),
        rank=index,
        eligible=True,
        cited=True,
        explanation=ScoreExplanation(parts={}, weights={}, text="test"),
    )


def cited(
    text: str,
    sources: list[dict[str, Any]],
    *,
    units: list[dict[str, Any]] | None = None,
    sentences: list[str] | None = None,
    passages: list[dict[str, Any]] | None = None,
) -> AnswerCited:
    """An `answer.cited` event. `sentences` are substrings of `text` in order; each `[n]`
    marker inside one becomes a valid citation of source n (when it exists)."""
    answer = AnswerSubmitted.model_validate(
        {"answer_id": "a1", "text": text, "sources": sources, "answer_units": units}
    )
    utf16 = Utf16Index(text)
    known = {s.index for s in answer.sources}
    sentence_models: list[Sentence] = []
    citations: list[Citation] = []
    position = 0
    for number, sentence in enumerate(sentences or []):
        start = text.index(sentence, position)
        end = start + len(sentence)
        position = end
        ids = []
        for marker in _MARKER.finditer(sentence):
            index = int(marker.group(1))
            ids.append(index)
            citations.append(
                Citation(
                    start=start + marker.start(),
                    end=start + marker.end(),
                    start_utf16=utf16(start + marker.start()),
                    end_utf16=utf16(start + marker.end()),
                    id=index,
                    marker=marker.group(),
                    source_index=index if index in known else None,
                    valid=index in known,
                    cluster_index=len(citations),
                    sentence_index=number,
                )
            )
        sentence_models.append(
            Sentence(
                start=start,
                end=end,
                start_utf16=utf16(start),
                end_utf16=utf16(end),
                index=number,
                text=sentence,
                citation_ids=ids,
            )
        )
    extraction = CitationExtraction(
        citations=citations,
        sentences=sentence_models,
        passages=[SupportingPassage.model_validate(p) for p in passages or []],
    )
    return AnswerCited(
        answer=answer,
        scores=[_score(s.index) for s in answer.sources],
        passage_sources=sorted(known),
        extraction=extraction,
    )


def section_text(cited_answer: AnswerCited, source_index: int, section_id: str) -> str:
    """A section's text rebuilt from its chunks placed at `start_char` (gaps as NUL)."""
    src = next(s for s in cited_answer.answer.sources if s.index == source_index)
    placed = [
        (c.start_char, c.text)
        for c in src.chunks
        if c.start_char is not None and (c.section_id or src.doc_id) == section_id
    ]
    if not placed:
        own = [
            c.text
            for c in src.chunks
            if c.start_char is None and c.chunk_id == section_id
        ]
        return own[0]
    size = max(start + len(text) for start, text in placed)
    chars = ["\x00"] * size
    for start, text in placed:
        chars[start : start + len(text)] = text
    return "".join(chars)
