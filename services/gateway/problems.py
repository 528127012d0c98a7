"""RFC 9457 problem details: every error the gateway answers is `application/problem+json`
with a stable `code` and, for invalid input, the JSON path of every invalid field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any, NotRequired

import orjson
from starlette.requests import Request
from starlette.responses import Response
from typing_extensions import TypedDict

PROBLEM_TYPE = "application/problem+json"
TYPE_BASE = "https://citeflow.dev/problems/"


class InvalidField(TypedDict):
    code: str
    message: str
    path: str


class ProblemDocument(TypedDict):
    """An RFC 9457 problem with citeflow's members (`code`, `path`, `errors`)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    instance: NotRequired[str]
    path: NotRequired[str]
    errors: NotRequired[list[InvalidField]]
    answer_id: NotRequired[str]
    limit_bytes: NotRequired[int]


class ProblemError(Exception):
    """Raised anywhere in a request; the app turns it into a problem+json response."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        path: str | None = None,
        errors: Sequence[InvalidField] | None = None,
        headers: Mapping[str, str] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.path = path
        self.errors = list(errors or [])
        self.headers = dict(headers or {})
        self.extra = dict(extra or {})

    def body(self, instance: str | None = None) -> ProblemDocument:
        """The problem document."""
        doc: ProblemDocument = {
            "type": TYPE_BASE + self.code,
            "title": HTTPStatus(self.status).phrase,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if instance:
            doc["instance"] = instance
        if self.path is not None:
            doc["path"] = self.path
        if self.errors:
            doc["errors"] = self.errors
        doc.update(self.extra)  # type: ignore[typeddict-item]
        return doc

    def response(self, instance: str | None = None) -> Response:
        return Response(orjson.dumps(self.body(instance)), self.status, self.headers,
                        media_type=PROBLEM_TYPE)


def unavailable(what: str, retry_after_s: int) -> ProblemError:
    """503 with Retry-After: a dependency (broker, store) cannot be reached."""
    return ProblemError(
        503, f"{what}_unavailable", f"the {what} cannot be reached; nothing was lost, retry",
        headers={"Retry-After": str(retry_after_s)},
    )


async def problem_handler(request: Request, exc: Exception) -> Response:
    """Starlette exception handler for ProblemError."""
    assert isinstance(exc, ProblemError)
    return exc.response(request.url.path)


async def http_exception_handler(request: Request, exc: Exception) -> Response:
    """Starlette's own HTTPExceptions (404 of an unknown route, 405) as problems too."""
    status = getattr(exc, "status_code", 500)
    detail = getattr(exc, "detail", None) or HTTPStatus(status).phrase
    code = {404: "not_found", 405: "method_not_allowed"}.get(status, "http_error")
    headers = getattr(exc, "headers", None)
    return ProblemError(status, code, str(detail), headers=headers).response(request.url.path)
