"""Small builders shared by the citations tests."""

from __future__ import annotations

from typing import Any

from schemas.answers import AnswerAccepted, AnswerSubmitted, Chunk, Source
from schemas.scoring import AnswerScored
from services.scoring.logic import score_answer


def sources(count: int, **extra: Any) -> list[Source]:
    """`count` document sources indexed 1..count."""
    return [Source(index=i, doc_id=f"doc{i}", **extra) for i in range(1, count + 1)]


def source(index: int, kind: str = "document", **fields: Any) -> Source:
    """One source."""
    return Source(index=index, kind=kind, **fields)


def chunk(text: str, **fields: Any) -> Chunk:
    """One chunk."""
    return Chunk(text=text, **fields)


def scored(text: str, source_list: list[Source], **options: Any) -> AnswerScored:
    """An answer scored by the real scoring stage."""
    answer = AnswerSubmitted(
        answer_id="a1", query=None, text=text, sources=source_list, options=options or None
    )
    return score_answer(AnswerAccepted(answer=answer, submitted_event_id="e1", size_bytes=1))
