"""Documents over HTTP: upload, status, and the reader's views, per tenant.

`POST /v1/documents` (scope `submit`) stores the upload content-addressed, records it as
`submitted` and produces `documents.submitted`; the ingest stage does the rest and the store
sink records the outcome. Reads (scope `read`) see only the key's tenant's documents: another
tenant's document is a 404. Chapter and page work is CPU-bound and runs in the reader
processes (renderer.py, reader_work.py), never in the gateway's.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, cast

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from schemas.documents import DocumentSubmitted
from services.gateway.context import authorize, gateway_of
from services.gateway.documents import reader_work
from services.gateway.documents.reader import reader_of
from services.gateway.documents.renderer import RenderBusy
from services.gateway.documents.responses import (
    ChapterView,
    PageHighlights,
    status_document,
)
from services.gateway.documents.selectors import Quote, from_query, from_result
from services.gateway.documents.upload import receive_upload
from services.gateway.problems import ProblemError, unavailable
from services.ingest.documents.pdf import is_pdf
from services.ingest.documents.rejection import DocumentRejection
from services.store.api import DocumentRecord, StoreUnavailable

# Not only dots: `.`, `..` and `...` are rewritten by every client as path segments.
DOC_ID = re.compile(r"^(?!\.+$)[A-Za-z0-9._:-]{1,200}$")
ZIP_MAGIC = b"PK\x03\x04"
SCALES = (0.5, 4.0)
DEFAULT_SCALE = 1.5
# Content of a tenant's document: a browser may keep it but must ask again before each use
# (a revoked key then gets nothing; an unchanged page costs a 304 by its ETag).
PRIVATE_CACHE = {"Cache-Control": "private, no-cache", "X-Content-Type-Options": "nosniff"}
NO_STORE = {"Cache-Control": "no-store"}


def _json(doc: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(doc), status, headers, media_type="application/json")


def _sniff(head: bytes) -> str:
    if is_pdf(head):
        return "pdf"
    if head.startswith(ZIP_MAGIC):
        return "epub"
    raise ProblemError(415, "unsupported_document", "the upload is neither a PDF nor an EPUB")


async def _store(request: Request, call: Any) -> Any:
    try:
        return await call
    except StoreUnavailable:
        raise unavailable("store", gateway_of(request).settings.retry_after_s) from None


async def upload(request: Request) -> Response:
    principal = await authorize(request, "submit")
    reader = reader_of(request)
    store = gateway_of(request).store
    received = await receive_upload(request, reader.upload_dir, reader.max_document_bytes)
    try:
        fmt = _sniff(received.head)
        doc_id = received.fields.get("doc_id") or f"doc-{received.sha256[:24]}"
        if not DOC_ID.match(doc_id):
            raise ProblemError(400, "invalid_parameter",
                               "doc_id must be 1..200 of [A-Za-z0-9._:-], not only dots",
                               path="$.doc_id")
        # Content-addressed: storing the bytes first claims nothing (same bytes, same path).
        uri = await run_in_threadpool(reader.store.put_file, received.path, received.sha256,
                                      fmt)
    finally:
        received.path.unlink(missing_ok=True)
    now = datetime.now(UTC)
    mine = DocumentRecord(doc_id=doc_id, tenant=principal.tenant, status="submitted",
                          format=fmt, path=uri, sha256=received.sha256,
                          submitted_at=now, updated_at=now)
    # One atomic claim of the tenant's own doc_id (doc_ids are per tenant: another tenant's
    # use of the same id is another document, never a conflict nor a sign it exists).
    record = await _store(request, store.claim_document(mine))
    if record != mine and record.status != "submitted":
        return _json(status_document(record), 200, NO_STORE)
    # A new claim, or recorded but maybe never produced (the broker was down): produce it
    # (again: the event id is the same, so ingest sees a recognisable duplicate at worst).
    title = received.fields.get("title") or None
    submitted = DocumentSubmitted(doc_id=doc_id, uri=record.path,
                                  format=fmt,  # type: ignore[arg-type]
                                  title=title, metadata={"tenant": principal.tenant})
    await reader.publisher.publish(submitted, principal.tenant, received.sha256)
    return _json({**status_document(record), "size": received.size}, 202,
                 {"Location": f"/v1/documents/{doc_id}", **NO_STORE})


async def _document(request: Request, fmt: str | None = None) -> DocumentRecord:
    """The tenant's document; with `fmt`, its content is wanted, served only once ingested
    (a document still submitted, rejected or dead-lettered is a 409 saying which)."""
    principal = await authorize(request, "read")
    doc_id = request.path_params["doc_id"]
    if not DOC_ID.match(doc_id):
        raise ProblemError(404, "not_found", f"no document {doc_id!r}")
    record = await _store(request, gateway_of(request).store.get_document(
        doc_id, principal.read_tenant()))
    if record is None:
        raise ProblemError(404, "not_found", f"no document {doc_id!r}")
    if fmt is not None and record.format != fmt:
        raise ProblemError(404, "not_found", f"document {doc_id!r} is not {fmt.upper()}")
    if fmt is not None and record.status != "ingested":
        detail = {"submitted": "is not ingested yet", "rejected": "was rejected",
                  "dead_lettered": "failed in ingest (dead-lettered)"}.get(
                      record.status, f"is {record.status}")
        raise ProblemError(409, f"document_{record.status}",
                           f"document {doc_id!r} {detail}; its content is not served",
                           headers={"Retry-After": "2"} if record.status == "submitted" else None,
                           extra={"status": record.status, "reason": record.reason})
    return record


async def status(request: Request) -> Response:
    return _json(status_document(await _document(request)), headers=NO_STORE)


async def _quote(request: Request, doc_id: str) -> Quote | None:
    """The selector of the request: in the query, or from a stored answer of the tenant."""
    params = request.query_params
    answer_id = params.get("answer_id")
    if answer_id is None:
        return from_query(params)
    principal = await authorize(request, "read", cost=0)
    answer = await _store(request, gateway_of(request).store.get(
        answer_id, principal.read_tenant()))
    if answer is None or answer.result is None:
        raise ProblemError(404, "not_found", f"no formatted answer {answer_id!r}")
    return from_result(answer.result, doc_id, params)


def _refused(exc: DocumentRejection) -> ProblemError:
    status_code = 404 if exc.code in ("href_not_in_spine", "page_out_of_range") else 422
    return ProblemError(status_code, exc.code, exc.message)


async def _reader_work(request: Request, job: Any, *args: Any) -> Any:
    """`job` in a reader process; its refusals as problems."""
    try:
        return await reader_of(request).renderer.work(job, *args)
    except DocumentRejection as exc:
        raise _refused(exc) from None
    except RenderBusy as exc:
        raise ProblemError(503, "renderer_busy", str(exc),
                           headers={"Retry-After": "2"}) from None


def _quote_args(quote: Quote) -> tuple[str, str, str]:
    return (quote.exact, quote.prefix, quote.suffix)


async def chapter(request: Request) -> Response:
    record = await _document(request, "epub")
    href = request.path_params["href"]
    quote = await _quote(request, record.doc_id)
    reader = reader_of(request)
    view = await _reader_work(request, reader_work.chapter_job, str(reader.store.root),
                              record.path, record.sha256, record.doc_id, href,
                              None if quote is None else _quote_args(quote))
    return _json(cast(ChapterView, view), headers=PRIVATE_CACHE)


async def resource(request: Request) -> Response:
    record = await _document(request, "epub")
    name = request.path_params["path"]
    # A DocumentRejection: stored as an EPUB, but not one.
    found = await _reader_work(request, reader_work.resource_job,
                               str(reader_of(request).store.root), record.path,
                               record.sha256, name)
    if found is None:
        raise ProblemError(404, "not_found", f"no image {name!r} in this document")
    data, media_type = found
    return Response(data, media_type=media_type, headers=PRIVATE_CACHE)


def _scale(request: Request) -> float:
    raw = request.query_params.get("scale")
    if raw is None:
        return DEFAULT_SCALE
    try:
        value = float(raw)
    except ValueError:
        raise ProblemError(400, "invalid_parameter", "scale must be a number",
                           path="scale") from None
    if not SCALES[0] <= value <= SCALES[1]:
        raise ProblemError(400, "invalid_parameter",
                           f"scale must be within {SCALES[0]}..{SCALES[1]}", path="scale")
    return round(value * 4) / 4  # quarter steps: a bounded number of cached renders


async def page_png(request: Request) -> Response:
    record = await _document(request, "pdf")
    number, scale = request.path_params["number"], _scale(request)
    etag = f'"{record.sha256[:32]}-{number}@{scale:g}"'
    if request.headers.get("if-none-match") == etag:  # revalidated with a valid key
        return Response(status_code=304, headers={**PRIVATE_CACHE, "ETag": etag})
    reader = reader_of(request)
    try:
        data, used = await reader.renderer.render(
            str(reader.store.path(record.path)), record.sha256, number, scale)
    except DocumentRejection as exc:
        raise _refused(exc) from None
    except RenderBusy as exc:
        raise ProblemError(503, "renderer_busy", str(exc),
                           headers={"Retry-After": "2"}) from None
    return Response(data, media_type="image/png",
                    headers={**PRIVATE_CACHE, "ETag": etag, "X-Render-Scale": f"{used:g}"})


async def highlights(request: Request) -> Response:
    record = await _document(request, "pdf")
    number = request.path_params["number"]
    quote = await _quote(request, record.doc_id)
    if quote is None:
        raise ProblemError(400, "invalid_parameter",
                           "give exact (with prefix/suffix) or answer_id with citation_id "
                           "or unit_id", path="exact")
    found = await _reader_work(request, reader_work.highlights_job,
                               str(reader_of(request).store.root), record.path,
                               record.sha256, number, _quote_args(quote))
    return _json(cast(PageHighlights, found), headers=PRIVATE_CACHE)


def routes() -> list[Route]:
    base = "/v1/documents/{doc_id}"
    return [
        Route("/v1/documents", upload, methods=["POST"], name="upload_document"),
        Route(base, status, methods=["GET"], name="document_status"),
        Route(base + "/chapters/{href:path}", chapter, methods=["GET"], name="chapter"),
        Route(base + "/resources/{path:path}", resource, methods=["GET"], name="resource"),
        Route(base + "/pages/{number:int}.png", page_png, methods=["GET"], name="page_png"),
        Route(base + "/pages/{number:int}/highlights", highlights, methods=["GET"],
              name="page_highlights"),
    ]
