"""Small builders shared by the citations tests."""

from __future__ import annotations

from typing import Any

from schemas.answers import AnswerAccepted, AnswerSubmitted, Chunk, Source
from schemas.scoring import AnswerScored, ScoreExplanation, SourceScore
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


def answer(text: str, source_list: list[Source], **options: Any) -> AnswerSubmitted:
    """An answer with optional `options`."""
    return AnswerSubmitted(
        answer_id="a1", query=None, text=text, sources=source_list, options=options or None
    )


def scored(
    text: str, source_list: list[Source], passage_sources: list[int] | None = None
) -> AnswerScored:
    """A scored answer whose `passage_sources` are given (default: every source, in order),
    independent of how the scoring stage ranks sources."""
    scores = [
        SourceScore(
            index=s.index,
            score=1.0,
            rank=rank,
            eligible=True,
            cited=True,
            explanation=ScoreExplanation(parts={}, weights={}, text="test"),
        )
        for rank, s in enumerate(source_list, start=1)
    ]
    chosen = [s.index for s in source_list] if passage_sources is None else passage_sources
    return AnswerScored(answer=answer(text, source_list), scores=scores, passage_sources=chosen)


def scored_by_scoring_stage(text: str, source_list: list[Source], **options: Any) -> AnswerScored:
    """An answer scored by the real scoring stage (eligibility, order and cap are its own)."""
    accepted = AnswerAccepted(
        answer=answer(text, source_list, **options), submitted_event_id="e1", size_bytes=1
    )
    return score_answer(accepted)
