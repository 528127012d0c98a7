"""Query parameters of the read routes as pydantic models: one definition validates the
request (unknown parameters refused) and describes it in /openapi.json."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.requests import Request

from services.gateway.problems import InvalidField, ProblemError

_DURATION = re.compile(r"^(\d{1,7})([smhdw]?)$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
MAX_WINDOW = timedelta(days=366)

Status = Literal["submitted", "formatted", "rejected", "dead_lettered"]


P = TypeVar("P", bound="_Params")


def parse_duration(value: str) -> int:
    """`90`, `90s`, `15m`, `24h`, `7d`, `2w` to seconds (> 0)."""
    match = _DURATION.match(value.strip())
    if not match or int(match.group(1)) == 0:
        raise ValueError("a duration is a positive number with an optional unit s, m, h, d "
                         "or w (e.g. 15m, 24h)")
    return int(match.group(1)) * _UNIT_SECONDS[match.group(2)]


EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def _aware(value: datetime | None) -> datetime | None:
    """A time as UTC (naive: taken as UTC), within 1970..9000 (the store keeps epoch
    milliseconds; far years overflow on the way there)."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        value = value.astimezone(UTC)
    except OverflowError:
        raise ValueError("the time is out of range") from None
    if not EARLIEST <= value < LATEST:
        raise ValueError("a time from 1970 to 9000 is expected")
    return value


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AnswerListParams(_Params):
    """`GET /v1/answers`."""

    model: str | None = Field(None, max_length=200, description="metadata.model equals this")
    language: str | None = Field(None, pattern=r"^[a-z]{2,3}$",
                                 description="the answer's detected language (e.g. zh, ar; "
                                 "und: undetermined)")
    status: Status | None = None
    since: datetime | None = Field(None, description="submitted at or after (RFC 3339)")
    until: datetime | None = Field(None, description="submitted before (RFC 3339)")
    has_problems: bool | None = None
    min_coverage: float | None = Field(None, ge=0, le=1)
    max_coverage: float | None = Field(None, ge=0, le=1)
    invalid_citations: bool | None = Field(None, description="has invalid citations")
    downgraded_quotes: bool | None = Field(None, description="has verbatim quotes "
                                           "downgraded to derived")
    disagreement: bool | None = Field(None, description="a model judge disagrees with the "
                                      "lexical verdict of some citation (false: judged, "
                                      "agrees on every one)")
    tenant: str | None = Field(None, max_length=200, description="admin keys only")
    limit: int = Field(50, ge=1, le=500)
    cursor: str | None = Field(None, max_length=1000)

    _aware_times = field_validator("since", "until")(_aware)


class StatsParams(_Params):
    """`GET /v1/stats`."""

    group_by: Literal["model", "tenant", "language", "judge", "none"] = "model"
    window: str = Field("24h", description="how far back from `until`, e.g. 15m, 24h, 7d")
    until: datetime | None = Field(None, description="end of the window (default: now)")
    bucket: str | None = Field(None, description="split the window into buckets of this "
                               "length, e.g. 1h")
    model: str | None = Field(None, max_length=200)
    language: str | None = Field(None, pattern=r"^[a-z]{2,3}$")
    tenant: str | None = Field(None, max_length=200, description="admin keys only")
    compare: Literal["previous"] | None = Field(
        None, description="also measure the window of the same length just before "
        "(`previous`), for rates now against then")

    _aware_until = field_validator("until")(_aware)

    @field_validator("window", "bucket")
    @classmethod
    def _duration(cls, value: str | None) -> str | None:
        if value is not None:
            parse_duration(value)
        return value


def parse_params(request: Request, model: type[P]) -> P:
    """The query string as `model`, or a 400 problem naming every invalid parameter."""
    params = request.query_params
    raw: dict[str, Any] = {}
    for name in params:
        values = params.getlist(name)
        if len(values) > 1:
            raise ProblemError(400, "invalid_parameter", f"parameter {name!r} is repeated",
                               path=f"?{name}")
        if "\x00" in values[0]:
            raise ProblemError(400, "invalid_parameter", f"parameter {name!r} holds a NUL "
                               "character", path=f"?{name}")
        raw[name] = values[0]
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        errors: list[InvalidField] = [
            {"code": "unknown_parameter" if err["type"] == "extra_forbidden"
             else "invalid_parameter",
             "message": str(err["msg"]).removeprefix("Value error, "),
             "path": "?" + ".".join(str(p) for p in err["loc"])}
            for err in exc.errors(include_url=False)
        ]
        first = errors[0]
        raise ProblemError(400, first["code"], f"{first['path']}: {first['message']}",
                           path=first["path"], errors=errors) from None


def window_of(params: StatsParams, now: datetime) -> tuple[datetime, datetime, int | None]:
    """(since, until, bucket seconds) of a stats query, bounded to a year."""
    until = params.until or now
    seconds = parse_duration(params.window)
    if timedelta(seconds=seconds) > MAX_WINDOW:
        raise ProblemError(400, "invalid_parameter", "window is at most 366 days",
                           path="?window")
    bucket = parse_duration(params.bucket) if params.bucket else None
    if bucket is not None and seconds // bucket > 1000:
        raise ProblemError(400, "invalid_parameter", "at most 1000 buckets per window",
                           path="?bucket")
    return max(until - timedelta(seconds=seconds), EARLIEST), until, bucket
