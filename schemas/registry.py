"""Every event type, its versions and its current model."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel

from schemas.answers import (
    AnswerAccepted,
    AnswerRejected,
    AnswerSubmitted,
    ProviderAnswer,
)
from schemas.citations import AnswerCited
from schemas.documents import DocumentIngested, DocumentRejected, DocumentSubmitted
from schemas.formatted import AnswerFormatted
from schemas.judged import AnswerJudged
from schemas.scoring import AnswerScored
from schemas.spans import AnswerResolved

TYPE_PREFIX = "citeflow."
_TYPE_RE = re.compile(r"^citeflow\.([a-z_.]+)\.v([0-9]{1,4})$")


@dataclass(frozen=True)
class EventType:
    """One event name with its current model and major version."""

    name: str
    version: int
    model: type[BaseModel]
    # Versions older than `version` that an upcaster chain can still read.
    oldest_readable: int = 1

    @property
    def type(self) -> str:
        """The CloudEvents `type` of the current version."""
        return type_string(self.name, self.version)


EVENT_TYPES: dict[str, EventType] = {
    e.name: e
    for e in (
        EventType("answer.submitted", 1, AnswerSubmitted, oldest_readable=0),
        # A provider's own response, on `answers.submitted` too; ingest normalises it.
        EventType("answer.provider", 1, ProviderAnswer),
        EventType("answer.accepted", 1, AnswerAccepted),
        EventType("answer.rejected", 1, AnswerRejected),
        EventType("answer.scored", 1, AnswerScored),
        EventType("answer.cited", 1, AnswerCited),
        EventType("answer.resolved", 1, AnswerResolved),
        EventType("answer.formatted", 1, AnswerFormatted),
        # A model judge's second opinion (the judging stage), after answer.formatted.
        EventType("answer.judged", 1, AnswerJudged),
        EventType("document.submitted", 1, DocumentSubmitted),
        EventType("document.ingested", 1, DocumentIngested),
        EventType("document.rejected", 1, DocumentRejected),
    )
}

_BY_MODEL: dict[type[BaseModel], EventType] = {e.model: e for e in EVENT_TYPES.values()}


def type_string(name: str, version: int) -> str:
    """`citeflow.<name>.v<version>`."""
    return f"{TYPE_PREFIX}{name}.v{version}"


def parse_type(ce_type: str) -> tuple[str, int] | None:
    """Split a CloudEvents type into (name, version), or None when it is not ours."""
    match = _TYPE_RE.match(ce_type)
    if match is None:
        return None
    return match.group(1), int(match.group(2))


def event_type_of(model: type[BaseModel]) -> EventType:
    """The registered event type whose current model is `model`."""
    return _BY_MODEL[model]
