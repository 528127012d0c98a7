"""The ingest stage: one consumer of both upstream-facing topics."""

from __future__ import annotations

from schemas import topics
from services.ingest import answers, documents
from services.runtime.stage import Message, Output, Stage


def handle(message: Message) -> list[Output]:
    """Route a record to answer or document admission by its topic."""
    if message.topic == topics.DOCUMENTS_SUBMITTED:
        return documents.handle_submitted(message)
    return answers.handle_submitted(message)


STAGE = Stage(
    name="ingest",
    input_topics=(topics.ANSWERS_SUBMITTED, topics.DOCUMENTS_SUBMITTED),
    output_topics=(
        topics.ANSWERS_ACCEPTED,
        topics.ANSWERS_REJECTED,
        topics.DOCUMENTS_INGESTED,
        topics.DOCUMENTS_REJECTED,
    ),
    handle=handle,
    description="validate and admit answers and documents",
)
