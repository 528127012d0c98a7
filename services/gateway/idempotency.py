"""The `Idempotency-Key` request header (IETF httpapi draft): the first request under a key
is processed and its response stored; the same key with the same payload replays that
response; with another payload it is refused (422); while the first is still in flight a
second is refused (409). Keys are per tenant. A 5xx releases the key (the store drops it),
so a retry after a broker outage is processed anew."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable

import structlog
from starlette.requests import Request
from starlette.responses import Response

from services.gateway.problems import ProblemError, unavailable
from services.store.api import ResultsStore, StoreUnavailable

HEADER = "idempotency-key"
log = structlog.get_logger("citeflow", stage="gateway")
_MAX_KEY_CHARS = 255
# Headers worth replaying (the security and request-id headers are added afresh).
_KEPT_HEADERS = ("location", "content-type", "etag", "retry-after", "citeflow-status")


def idempotency_key(request: Request) -> str | None:
    """The header's key (a structured-field string, quotes optional), or None without it."""
    raw = request.headers.get(HEADER)
    if raw is None:
        return None
    key = raw.strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not key or len(key) > _MAX_KEY_CHARS or not key.isprintable():
        raise ProblemError(400, "invalid_idempotency_key",
                           f"Idempotency-Key must be 1..{_MAX_KEY_CHARS} printable characters",
                           path="header:Idempotency-Key")
    return key


def idempotent(
    request: Request, store: ResultsStore, tenant: str, body: bytes, retry_after_s: int,
    handle: Callable[[], Awaitable[Response]],
) -> Awaitable[Response]:
    """Run `handle` at most once per (tenant, Idempotency-Key); without the header, just run
    it (its own awaitable: no frame of this one between the request and the submit)."""
    key = idempotency_key(request)
    if key is None:
        return handle()
    return _once(request, key, store, tenant, body, retry_after_s, handle)


async def _once(
    request: Request, key: str, store: ResultsStore, tenant: str, body: bytes,
    retry_after_s: int, handle: Callable[[], Awaitable[Response]],
) -> Response:
    fingerprint = hashlib.sha256(
        request.method.encode() + b" " + request.url.path.encode() + b"\n" + body
    ).hexdigest()
    try:
        stored = await store.claim_idempotency_key(tenant, key, fingerprint)
    except StoreUnavailable:
        raise unavailable("store", retry_after_s) from None
    if stored is not None:
        if stored.status == 0:
            raise ProblemError(409, "idempotency_key_in_flight",
                               "a request with this Idempotency-Key is still being processed",
                               path="header:Idempotency-Key", headers={"Retry-After": "1"})
        if stored.fingerprint != fingerprint:
            raise ProblemError(422, "idempotency_key_reused",
                               "this Idempotency-Key was used with another request payload",
                               path="header:Idempotency-Key")
        return Response(stored.body, stored.status, dict(stored.headers))
    response: Response | None = None
    try:
        try:
            response = await handle()
        except ProblemError as exc:
            response = exc.response(request.url.path)
        return response
    finally:
        # An unexpected exception records a 500, which releases the key.
        await _finish(store, tenant, key, response)


async def _finish(store: ResultsStore, tenant: str, key: str, response: Response | None) -> None:
    status = 500 if response is None else response.status_code
    headers = {} if response is None else {
        name: value for name, value in response.headers.items() if name in _KEPT_HEADERS
    }
    body = b"" if response is None else bytes(response.body)
    try:
        await store.finish_idempotency_key(tenant, key, status, headers, body)
    except StoreUnavailable:
        # The response is still sent; the claim stays "in flight", so a retry under this
        # key is answered 409 rather than processed twice.
        log.warning("idempotency key not finished: store unavailable", key=key)
