"""The base model every event payload uses."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """Base of all event payload models.

    Unknown fields are ignored so an additive change by a newer producer (same
    major version) never breaks an older consumer.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class Span(Model):
    """An answer-side position: code points plus UTF-16 units for JavaScript."""

    start: int
    end: int
    start_utf16: int
    end_utf16: int


class Problem(Model):
    """A non-fatal finding about the answer (never a rejection)."""

    code: str
    message: str
    start: int | None = None
    end: int | None = None
