"""`GET /v1/answers/{id}`, `GET /v1/answers` and `GET /v1/stats`: every read is
restricted to the key's tenant (admin keys: any, or `?tenant=`); another tenant's answer is
a 404, never a 403; a store that cannot be reached is a 503."""

from __future__ import annotations

import re
from collections.abc import Awaitable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar
from urllib.parse import urlencode

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from typing_extensions import TypedDict

from schemas.answers import ANSWER_ID_PATTERN
from services.gateway import embed_tokens
from services.gateway.auth import Principal
from services.gateway.context import gateway_of
from services.gateway.observability import note
from services.gateway.problems import ProblemError, unavailable
from services.gateway.queries import (
    EARLIEST,
    AnswerListParams,
    StatsParams,
    parse_params,
    window_of,
)
from services.gateway.representation import (
    STATUS_HEADER,
    AnswerStatus,
    answer_body,
    dump,
    etag,
    is_final,
    status_document,
)
from services.store.api import (
    AnswerQuery,
    AnswerRecord,
    GroupStats,
    StatsQuery,
    StoreUnavailable,
)

T = TypeVar("T")
# A submitted answer's id, or the id an input without one is kept under (`@` + where it
# was read: schemas.answers.unidentified_answer_id).
_ANSWER_ID = re.compile("@?" + ANSWER_ID_PATTERN.strip("^$"))


class AnswerPage(TypedDict):
    """A page of `GET /v1/answers`; `next` is the URL of the following page."""

    items: list[AnswerStatus]
    next_cursor: str | None
    next: str | None


class PreviousPeriod(TypedDict):
    """The same measures over the window of the same length just before (`?compare=`)."""

    since: datetime
    until: datetime
    groups: list[GroupStats]


class StatsDocument(TypedDict):
    """`GET /v1/stats`: one group per model or tenant (and time bucket when asked);
    `previous` the window before, when `?compare=previous` asks for it (else null)."""

    since: datetime
    until: datetime
    group_by: Literal["model", "tenant", "language", "judge", "none"]
    bucket_seconds: int | None
    groups: list[GroupStats]
    previous: PreviousPeriod | None


async def _store_call(request: Request, call: Awaitable[T]) -> T:
    try:
        return await call
    except StoreUnavailable:
        raise unavailable("store", gateway_of(request).settings.retry_after_s) from None


NO_STORE = {"Cache-Control": "no-store"}  # a tenant's lists and figures: kept nowhere
# Whose data a response holds: the pages show it (a key from a link may be another
# tenant's).
TENANT_HEADER = "X-Citeflow-Tenant"


def _json(doc: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(dump(doc), 200, headers, media_type="application/json")


def _tenant_filter(principal: Principal, asked: str | None) -> str | None:
    """The tenant a read is restricted to: the key's own; admin keys any (`?tenant=`)."""
    if asked is not None and not principal.is_admin and asked != principal.tenant:
        raise ProblemError(403, "missing_scope", "only admin keys read other tenants",
                           path="?tenant")
    return asked if principal.is_admin else principal.tenant


def _if_none_match(request: Request, tag: str) -> bool:
    header = request.headers.get("if-none-match")
    if header is None:
        return False
    candidates = {t.strip().removeprefix("W/") for t in header.split(",")}
    return "*" in candidates or tag in candidates


async def _recent_outcome(request: Request, record: AnswerRecord) -> AnswerRecord:
    """The outcome the stream hub has just seen for an answer the store still has in
    flight (the store sink writes a moment later): a client that got its result from
    `?wait=` reads the same result by id at once."""
    recent = await gateway_of(request).hub.wait_for(record.answer_id, record.tenant, 0)
    if recent is not None and is_final(recent) and recent.tenant == record.tenant:
        return recent
    return record


async def _looked_up(request: Request) -> tuple[str, AnswerRecord | None]:
    """The path's answer id and the reading key's answer of that id (None: there is none)."""
    gateway = gateway_of(request)
    principal = await gateway.authorize(request, "read")
    answer_id = request.path_params["answer_id"]
    note(request, answer_id=answer_id)
    # An id no answer can have (outside `ANSWER_ID_PATTERN`) is not looked up: some characters (NUL)
    # are not even storable.
    record = await _store_call(request, gateway.store.get(
        answer_id, principal.read_tenant())) if _ANSWER_ID.fullmatch(answer_id) else None
    return answer_id, record


async def get_answer(request: Request) -> Response:
    answer_id, record = await _looked_up(request)
    if record is not None and not is_final(record):
        record = await _recent_outcome(request, record)
    if record is None:
        raise ProblemError(404, "not_found", f"no answer {answer_id!r}")
    body = answer_body(record)
    tag = etag(body)
    # private: a shared cache must never keep a tenant's answer; no-cache: a browser asks
    # again (with the key) before each use, so nothing outlives a revoked key.
    headers = {"ETag": tag, STATUS_HEADER: record.status, "Cache-Control": "private, no-cache",
               TENANT_HEADER: record.tenant}
    if _if_none_match(request, tag):
        return Response(None, 304, headers)
    return Response(body, 200, headers, media_type="application/json")


async def get_versions(request: Request) -> Response:
    """`GET /v1/answers/{answer_id}/versions`: the current result's event and the earlier
    results the store kept (CITEFLOW_STORE_VERSIONS), the newest replaced first."""
    answer_id, record = await _looked_up(request)
    if record is None:
        raise ProblemError(404, "not_found", f"no answer {answer_id!r}")
    kept = await _store_call(request, gateway_of(request).store.versions(answer_id,
                                                                         record.tenant))
    doc = {"answer_id": answer_id, "tenant": record.tenant, "status": record.status,
           "event_id": record.event_id,
           "versions": [{"event_id": v.event_id, "event_time": v.event_time,
                         "replaced_at": v.replaced_at, "replaced_by": v.replaced_by,
                         "result": orjson.Fragment(v.result)} for v in kept]}
    return _json(doc, headers={"Cache-Control": "private, no-cache",
                               TENANT_HEADER: record.tenant})


async def list_answers(request: Request) -> Response:
    gateway = gateway_of(request)
    principal = await gateway.authorize(request, "read")
    params = parse_params(request, AnswerListParams)
    query = AnswerQuery(
        tenant=_tenant_filter(principal, params.tenant), model=params.model,
        language=params.language, status=params.status, since=params.since, until=params.until,
        has_problems=params.has_problems, min_coverage=params.min_coverage,
        max_coverage=params.max_coverage, has_invalid_citations=params.invalid_citations,
        has_downgraded_quotes=params.downgraded_quotes, disagreement=params.disagreement,
        limit=params.limit,
        cursor=params.cursor,
    )
    try:
        page = await _store_call(request, gateway.store.query(query))
    except ValueError as exc:  # a cursor the store cannot read
        raise ProblemError(400, "invalid_parameter", str(exc), path="?cursor") from None
    doc: AnswerPage = {"items": [status_document(r) for r in page.items],
                       "next_cursor": page.next_cursor, "next": None}
    headers = dict(NO_STORE)
    if page.next_cursor is not None:
        following = {**request.query_params, "cursor": page.next_cursor}
        doc["next"] = f"{request.url.path}?{urlencode(following)}"
        headers["Link"] = f'<{doc["next"]}>; rel="next"'
    return _json(doc, headers=headers)


async def get_stats(request: Request) -> Response:
    gateway = gateway_of(request)
    principal = await gateway.authorize(request, "read")
    params = parse_params(request, StatsParams)
    since, until, bucket = window_of(params, datetime.now(UTC))
    query = StatsQuery(tenant=_tenant_filter(principal, params.tenant), since=since,
                       until=until, group_by=params.group_by, bucket_seconds=bucket,
                       model=params.model, language=params.language)
    groups = await _store_call(request, gateway.store.stats(query))
    previous: PreviousPeriod | None = None
    if params.compare == "previous":
        before = max(since - (until - since), EARLIEST)
        earlier = replace(query, since=before, until=since)
        previous = {"since": before, "until": since,
                    "groups": await _store_call(request, gateway.store.stats(earlier))}
    doc: StatsDocument = {"since": since, "until": until, "group_by": params.group_by,
                          "bucket_seconds": bucket, "groups": groups, "previous": previous}
    shown = query.tenant or "every tenant (admin key)"
    return _json(doc, headers={**NO_STORE, TENANT_HEADER: shown})


async def create_embed_token(request: Request) -> Response:
    """`POST /v1/answers/{answer_id}/embed-token?ttl=`: a token reading only this answer and
    the documents it cites, for `ttl` seconds (a page embedding the component carries it
    instead of a key of the whole tenant)."""
    gateway = gateway_of(request)
    principal = await gateway.authorize(request, "read")
    answer_id = request.path_params["answer_id"]
    raw_ttl = request.query_params.get("ttl", str(embed_tokens.DEFAULT_TTL_S))
    if not raw_ttl.isdigit() or not 1 <= int(raw_ttl) <= embed_tokens.MAX_TTL_S:
        raise ProblemError(400, "invalid_parameter", f"ttl must be whole seconds from 1 to "
                           f"{embed_tokens.MAX_TTL_S}", path="?ttl")
    record = await _store_call(request, gateway.store.get(
        answer_id, principal.read_tenant())) if _ANSWER_ID.fullmatch(answer_id) else None
    if record is None:
        raise ProblemError(404, "not_found", f"no answer {answer_id!r}")
    sources = orjson.loads(record.result).get("sources", []) if record.result else []
    grant = embed_tokens.grant_for(record.tenant, answer_id,
                                   [s["doc_id"] for s in sources if s.get("doc_id")],
                                   int(raw_ttl))
    return _json({"token": embed_tokens.issue(grant), "answer_id": answer_id,
                  "documents": list(grant.doc_ids),
                  "expires_at": datetime.fromtimestamp(grant.expires_at, UTC)},
                 headers={**NO_STORE, TENANT_HEADER: record.tenant})


def routes() -> list[Route]:
    return [
        Route("/v1/answers/{answer_id}/embed-token", create_embed_token, methods=["POST"],
              name="create_embed_token"),
        Route("/v1/answers", list_answers, methods=["GET"], name="list_answers"),
        Route("/v1/answers/{answer_id}/versions", get_versions, methods=["GET"],
              name="get_versions"),
        Route("/v1/answers/{answer_id}", get_answer, methods=["GET"], name="get_answer"),
        Route("/v1/stats", get_stats, methods=["GET"], name="get_stats"),
    ]
