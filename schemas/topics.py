"""Topic names of the pipeline."""

from __future__ import annotations

ANSWERS_SUBMITTED = "answers.submitted"
ANSWERS_ACCEPTED = "answers.accepted"
ANSWERS_REJECTED = "answers.rejected"
ANSWERS_SCORED = "answers.scored"
ANSWERS_CITED = "answers.cited"
ANSWERS_RESOLVED = "answers.resolved"
ANSWERS_FORMATTED = "answers.formatted"
ANSWERS_JUDGED = "answers.judged"
DOCUMENTS_SUBMITTED = "documents.submitted"
DOCUMENTS_INGESTED = "documents.ingested"
DOCUMENTS_REJECTED = "documents.rejected"

ALL_TOPICS: tuple[str, ...] = (
    ANSWERS_SUBMITTED,
    ANSWERS_ACCEPTED,
    ANSWERS_REJECTED,
    ANSWERS_SCORED,
    ANSWERS_CITED,
    ANSWERS_RESOLVED,
    ANSWERS_FORMATTED,
    ANSWERS_JUDGED,
    DOCUMENTS_SUBMITTED,
    DOCUMENTS_INGESTED,
    DOCUMENTS_REJECTED,
)

# Topics upstream producers write to: an unknown event version there is a rejection,
# on internal topics it is a dead letter.
UPSTREAM_TOPICS: frozenset[str] = frozenset({ANSWERS_SUBMITTED, DOCUMENTS_SUBMITTED})


def dlq_topic(input_topic: str) -> str:
    """The dead-letter topic of a consuming stage's input topic."""
    return f"{input_topic}.dlq"
