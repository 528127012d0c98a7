"""Which outcomes one stream client receives: its tenant, the query filters of
`GET /v1/answers` (the same parameter definitions) evaluated on the result's Summary, and
which statuses it asked for (`?include=rejected,dead_lettered`; formatted always).

Summary filters read formatted results only: a rejection or dead letter has no summary and
passes none of them (as a NULL column fails a comparison in the store's query).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, create_model, field_validator

from services.gateway.queries import AnswerListParams, _Params
from services.store.api import Status, Summary

INCLUDABLE: tuple[Status, ...] = ("rejected", "dead_lettered")
# The filters of `GET /v1/answers` that apply to a stream, defined once in queries.py.
_SHARED = ("model", "has_problems", "min_coverage", "max_coverage", "invalid_citations",
           "downgraded_quotes", "tenant")


class _StreamOnly(_Params):
    include: str | None = Field(None, description="also stream failures: rejected, "
                                "dead_lettered (comma-separated)")
    last_event_id: str | None = Field(None, max_length=8192, description="resume after "
                                      "this position (the Last-Event-ID header wins)")
    view: Literal["full", "summary"] = Field("full", description="full: events carry the "
                                             "formatted result; summary: without it")

    @field_validator("include")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        for name in _parts(value):
            if name not in INCLUDABLE:
                raise ValueError(f"include takes {', '.join(INCLUDABLE)}; got {name!r}")
        return value


_fields: dict[str, Any] = {
    name: (AnswerListParams.model_fields[name].annotation, AnswerListParams.model_fields[name])
    for name in _SHARED
}
StreamParams = create_model("StreamParams", __base__=_StreamOnly, **_fields)
StreamParams.__doc__ = "`GET /v1/stream`."


@dataclass(frozen=True, slots=True)
class StreamFilter:
    """A client's filter; `tenant` None means every tenant (admin keys only)."""

    tenant: str | None
    statuses: frozenset[Status] = frozenset({"formatted"})
    model: str | None = None
    has_problems: bool | None = None
    min_coverage: float | None = None
    max_coverage: float | None = None
    invalid_citations: bool | None = None
    downgraded_quotes: bool | None = None

    @classmethod
    def of(cls, params: Any, tenant: str | None) -> StreamFilter:
        """The filter of parsed StreamParams, for `tenant` (decided by the caller's key)."""
        statuses: set[Status] = {"formatted"}
        statuses.update(s for s in INCLUDABLE if s in _parts(params.include))
        return cls(tenant, frozenset(statuses), params.model, params.has_problems,
                   params.min_coverage, params.max_coverage, params.invalid_citations,
                   params.downgraded_quotes)

    @property
    def reads_summary(self) -> bool:
        return (self.has_problems is not None or self.min_coverage is not None
                or self.max_coverage is not None or self.invalid_citations is not None
                or self.downgraded_quotes is not None)

    def accepts(self, tenant: str, status: Status, model: str | None,
                summary: Summary | None) -> bool:
        """Whether an outcome with these attributes is for this client."""
        if status not in self.statuses:
            return False
        if self.tenant is not None and tenant != self.tenant:
            return False
        if self.model is not None and model != self.model:
            return False
        if not self.reads_summary:
            return True
        return summary is not None and _summary_passes(self, summary)


def _summary_passes(f: StreamFilter, s: Summary) -> bool:
    if f.has_problems is not None and (s.problems > 0) != f.has_problems:
        return False
    if f.invalid_citations is not None and (s.invalid_citations > 0) != f.invalid_citations:
        return False
    if f.downgraded_quotes is not None and (s.downgraded_quotes > 0) != f.downgraded_quotes:
        return False
    if f.min_coverage is not None and (s.coverage is None or s.coverage < f.min_coverage):
        return False
    return not (f.max_coverage is not None
                and (s.coverage is None or s.coverage > f.max_coverage))


def _parts(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]
