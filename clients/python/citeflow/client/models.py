"""What the client returns: `AnswerFormatted` (generated from the event's JSON Schema) for a
formatted answer, and small pydantic models of the gateway's other documents (202 bodies,
statuses, pages, events)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from citeflow.schemas.answer_formatted import AnswerFormatted

Status = Literal["submitted", "formatted", "rejected", "dead_lettered"]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="allow")


class Accepted(_Doc):
    """A 202: the broker has the answer; read it at `location`."""

    answer_id: str
    event_id: str
    status: Literal["submitted"] = "submitted"
    location: str


class AnswerState(_Doc):
    """An answer that is not formatted (yet), or an item of a listing."""

    answer_id: str
    tenant: str
    status: Status
    model: str | None = None
    submitted_at: datetime | None = None
    updated_at: datetime | None = None
    reason: str | None = None
    detail: dict[str, Any] | None = None
    summary: dict[str, Any] | None = None
    latency_ms: float | None = None

    @property
    def final(self) -> bool:
        """Whether the pipeline is done with it (rejected, dead-lettered or formatted)."""
        return self.status != "submitted"


# What reading one answer gives: its formatted result, or its status.
Result = AnswerFormatted | AnswerState


class BatchLine(_Doc):
    """One line of a batch: 202 with the answer's location, or the line's problem."""

    line: int
    status: int
    answer_id: str | None = None
    event_id: str | None = None
    location: str | None = None
    problem: dict[str, Any] | None = None


class BatchResult(_Doc):
    accepted: int
    refused: int
    results: list[BatchLine]


class Stats(_Doc):
    """`GET /v1/stats`: one group per model or tenant (and time bucket when asked)."""

    since: datetime
    until: datetime
    group_by: str
    bucket_seconds: int | None = None
    groups: list[dict[str, Any]]


class Document(_Doc):
    """A document's record (`POST /v1/documents`, `GET /v1/documents/{id}`): `submitted`
    until ingest is done with it, then `ingested` (its sections and chunks) or `rejected`
    / `dead_lettered` (`reason`, `detail`)."""

    doc_id: str
    status: str
    format: str | None = None
    sections: int | None = None
    chunks: int | None = None
    reason: str | None = None
    detail: dict[str, Any] | None = None
    submitted_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def final(self) -> bool:
        """Whether ingest is done with it (ingested, rejected or dead-lettered)."""
        return self.status != "submitted"


class StreamEvent(_Doc):
    """One outcome of `GET /v1/stream`; `id` is its position (resume after it)."""

    id: str
    event: str
    answer_id: str
    tenant: str
    status: Status
    model: str | None = None
    event_id: str | None = None
    event_time: datetime | None = None
    summary: dict[str, Any] | None = None
    result: AnswerFormatted | None = None
    reason: str | None = None
    detail: dict[str, Any] | None = None


def result_of(status: str | None, data: Any) -> Result:
    """A GET body as the formatted result or as a status document."""
    if status == "formatted" or (status is None and "citations" in data):
        return AnswerFormatted.model_validate(data)
    return AnswerState.model_validate(data)
