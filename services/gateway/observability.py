"""Per-request observability and headers, as one pure ASGI middleware (no extra task per
request): a request id, a structlog JSON access line bound to request id / tenant / answer
id, Prometheus request counts and latency by route and status, and the security headers
(strict Content-Security-Policy) on every response."""

from __future__ import annotations

import itertools
import os
import re
import time
import uuid
from typing import Any

import orjson
import structlog
from prometheus_client import Counter, Histogram
from starlette.requests import Request
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.gateway.problems import PROBLEM_TYPE, ProblemError

# No inline script or style, nothing from another origin, no framing, no plugins.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
_LOG_KEY = "citeflow.log"
_INTERNAL = orjson.dumps(ProblemError(500, "internal_error", "an internal error; it was "
                                      "logged").body())
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")

REQUESTS = Counter("citeflow_http_requests_total", "HTTP requests answered",
                   ["method", "route", "status"])
LATENCY = Histogram("citeflow_http_request_seconds", "HTTP request latency (to the last "
                    "byte sent)", ["method", "route"],
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                             2.5, 5, 10, 30))
log = structlog.get_logger("citeflow", stage="gateway")
class _RequestIds:
    """Request ids of 32 hex digits: this process's random half and a counter (no uuid4 a
    request); renewed in a forked child, which must not repeat its parent's ids."""

    def __init__(self) -> None:
        self.renew()

    def renew(self) -> None:
        self._prefix = uuid.uuid4().hex[:16]
        self._counter = itertools.count()

    def next(self) -> str:
        return f"{self._prefix}{next(self._counter):016x}"


_REQUEST_IDS = _RequestIds()
os.register_at_fork(after_in_child=_REQUEST_IDS.renew)


def note(request: Request, **fields: Any) -> None:
    """Add fields (tenant, answer_id ...) to this request's access log line."""
    request.scope.setdefault(_LOG_KEY, {}).update(fields)


def _route_template(app: Any, scope: Scope) -> str:
    """The matched route's path template (bounded metric labels), or `unmatched`."""
    route = scope.get("route")
    if route is not None and hasattr(route, "path"):
        return str(route.path)
    for candidate in getattr(app, "routes", ()):
        match, _ = candidate.matches(scope)
        if match is Match.FULL:
            return str(getattr(candidate, "path", "unmatched"))
    return "unmatched"


class ObservabilityMiddleware:
    def __init__(self, app: ASGIApp, router: Any) -> None:
        self.app = app
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        supplied = _header(scope, b"x-request-id")
        request_id = supplied if supplied and _REQUEST_ID.match(supplied) else _REQUEST_IDS.next()
        fields: dict[str, Any] = {}
        scope[_LOG_KEY] = fields
        status = 500
        started_response = False

        problem = False

        async def send_with_headers(message: Message) -> None:
            nonlocal status, started_response, problem
            if message["type"] == "http.response.start":
                started_response = True
                status = message["status"]
                headers = list(message.get("headers", ()))
                problem = (b"content-type", PROBLEM_TYPE.encode()) in headers
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
                headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}
            elif problem:
                problem = False
                fields.update(_problem_fields(message.get("body", b"")))
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            # A bug, never input: logged with its trace; the client gets a problem+json 500
            # (with the security headers) when nothing was sent yet.
            log.exception("unhandled error", request_id=request_id, path=scope["path"])
            if started_response:
                raise
            await send_with_headers({"type": "http.response.start", "status": 500,
                                     "headers": [(b"content-type", PROBLEM_TYPE.encode())]})
            await send_with_headers({"type": "http.response.body", "body": _INTERNAL})
        finally:
            elapsed = time.perf_counter() - started
            route = _route_template(self.router, scope)
            method = scope["method"]
            count, latency = _metrics(method, route, status)
            count.inc()
            latency.observe(elapsed)
            log.info("request", request_id=request_id, method=method, path=scope["path"],
                     route=route, status=status, ms=round(elapsed * 1000, 2), **fields)


# The labelled children by (method, route template, status): bounded, and looked up once.
_CHILDREN: dict[tuple[str, str, int], tuple[Any, Any]] = {}


def _metrics(method: str, route: str, status: int) -> tuple[Any, Any]:
    """The request counter and latency histogram children of these labels."""
    key = (method, route, status)
    children = _CHILDREN.get(key)
    if children is None:
        children = _CHILDREN[key] = (REQUESTS.labels(method, route, str(status)),
                                     LATENCY.labels(method, route))
    return children


def _problem_fields(body: bytes) -> dict[str, Any]:
    """What a refusal's log line says of it: the problem's code, detail and path (the
    detail cut short; a body that is not a problem document adds nothing)."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(doc, dict):
        return {}
    found = {"problem": doc.get("code"), "reason": str(doc.get("detail", ""))[:300]}
    if doc.get("path") is not None:
        found["problem_path"] = doc["path"]
    return found


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None
