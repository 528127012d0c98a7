"""The reader's part of `/openapi.json`: the document routes, the pipeline health and the
pages, with schemas generated from the typed response documents (`responses`)."""

from __future__ import annotations

from typing import Any

from services.gateway.documents.responses import (
    ChapterView,
    DocumentStatus,
    PageHighlights,
    PipelineHealth,
)
from services.gateway.documents.routes import DOC_ID, SCALES
from services.gateway.documents.selectors import MAX_QUOTE_CHARS

COMPONENTS: list[tuple[Any, str]] = [
    (DocumentStatus, "DocumentStatus"), (ChapterView, "ChapterView"),
    (PageHighlights, "PageHighlights"), (PipelineHealth, "PipelineHealth"),
]
_REF = "#/components/schemas/{model}"
_AUTH: list[dict[str, list[str]]] = [{"bearer": []}]
_PROBLEM_TEXT = {
    400: "A bad parameter or a malformed upload",
    401: "Missing, unknown or revoked API key",
    403: "The key lacks the scope",
    404: "No such document (chapter, page, image, passage) for this key's tenant",
    409: "The doc_id is in use",
    413: "The document is over the size limit (the upload is never read past it)",
    415: "Not multipart/form-data, or neither a PDF nor an EPUB",
    422: "The stored document cannot be read there (e.g. a spine item that is not XHTML)",
    429: "Over the key's rate; see Retry-After",
    503: "Broker or store unreachable; see Retry-After",
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(model=name)}


def _json(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _problems(*statuses: int) -> dict[str, Any]:
    return {str(s): {"description": _PROBLEM_TEXT[s], "content": {
        "application/problem+json": {"schema": _ref("ProblemDocument")}}} for s in statuses}


def _path(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description,
            "schema": {"type": "string", "minLength": 1}}


def _page_number() -> dict[str, Any]:
    return {"name": "number", "in": "path", "required": True, "description": "1-based page",
            "schema": {"type": "integer", "minimum": 0}}


def _selector() -> list[dict[str, Any]]:
    """A TextQuoteSelector, or an answer's citation or verbatim unit naming one."""
    text = {"type": "string", "maxLength": MAX_QUOTE_CHARS}
    number = {"type": "integer"}
    return [
        {"name": "exact", "in": "query", "required": False, "schema": text,
         "description": "the quote (TextQuoteSelector exact)"},
        {"name": "prefix", "in": "query", "required": False, "schema": text},
        {"name": "suffix", "in": "query", "required": False, "schema": text},
        {"name": "answer_id", "in": "query", "required": False, "schema": {"type": "string"},
         "description": "take the selector from this answer's stored result"},
        {"name": "citation_id", "in": "query", "required": False, "schema": number},
        {"name": "sentence_index", "in": "query", "required": False, "schema": number},
        {"name": "atom", "in": "query", "required": False, "schema": number,
         "description": "with citation_id: the evidence of this atom of its support"},
        {"name": "unit_id", "in": "query", "required": False, "schema": {"type": "string"}},
        {"name": "span", "in": "query", "required": False, "schema": number},
    ]


def _get(operation: str, summary: str, parameters: list[dict[str, Any]],
         ok: dict[str, Any], *problems: int) -> dict[str, Any]:
    return {"get": {"summary": summary, "operationId": operation, "security": _AUTH,
                    "parameters": parameters,
                    "responses": {"200": ok, **_problems(*problems)}}}


def _binary(media_type: str, description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {media_type: {"schema": {"type": "string", "format": "binary"}}}}


def _with_not_modified(operation: dict[str, Any]) -> dict[str, Any]:
    operation["get"]["responses"]["304"] = {"description": "Not modified (If-None-Match)"}
    return operation


def paths() -> dict[str, Any]:
    doc_id = _path("doc_id", "the document's id")
    html = {"description": "The page (its script reads `#key=` from the URL fragment)",
            "content": {"text/html": {"schema": {"type": "string"}}}}
    return {
        "/v1/documents": {"post": {
            "summary": "Upload an EPUB or PDF (multipart: file, doc_id, title); it is stored "
                       "by content, recorded and produced to documents.submitted",
            "operationId": "upload_document", "security": _AUTH,
            "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
                "type": "object", "required": ["file"], "properties": {
                    "file": {"type": "string", "format": "binary"},
                    "doc_id": {"type": "string", "pattern": DOC_ID.pattern},
                    "title": {"type": "string", "maxLength": 1000}}}}}},
            "responses": {
                "202": {**_json("DocumentStatus", "Stored and submitted for ingest"),
                        "headers": {"Location": {"schema": {"type": "string"}}}},
                "200": _json("DocumentStatus", "The same document was uploaded before"),
                **_problems(400, 401, 403, 413, 415, 429, 503)},
        }},
        "/v1/documents/{doc_id}": _get(
            "document_status", "A document's status: submitted, ingested, rejected or dead_lettered",
            [doc_id], _json("DocumentStatus", "The status"), 401, 403, 404, 429, 503),
        "/v1/documents/{doc_id}/chapters/{href}": _get(
            "chapter", "A sanitised EPUB chapter by spine href, the quote marked",
            [doc_id, _path("href", "the spine item's full path"), *_selector()],
            _json("ChapterView", "The chapter"), 400, 401, 403, 404, 409, 422, 429, 503),
        "/v1/documents/{doc_id}/resources/{path}": _get(
            "resource", "An image of an EPUB (raster formats only)",
            [doc_id, _path("path", "the image's full path in the container")],
            _binary("image/*", "The image"), 401, 403, 404, 409, 429, 503),
        "/v1/documents/{doc_id}/pages/{number}.png": _with_not_modified(_get(
            "page_png", "A PDF page as PNG (rendered in a renderer process within a pixel "
                        "budget: X-Render-Scale says the scale used; revalidate by ETag)",
            [doc_id, _page_number(),
             {"name": "scale", "in": "query", "required": False, "schema": {
                 "type": "number", "minimum": SCALES[0], "maximum": SCALES[1]}}],
            _binary("image/png", "The page"), 400, 401, 403, 404, 409, 422, 429, 503)),
        "/v1/documents/{doc_id}/pages/{number}/highlights": _get(
            "page_highlights", "The quote's rectangles, the page only a hint",
            [doc_id, _page_number(), *_selector()],
            _json("PageHighlights", "Where the quote is"), 400, 401, 403, 404, 409, 422, 429, 503),
        "/v1/pipeline": _get(
            "pipeline_health", "Consumer lag and dead-letter records per stage, of every tenant "
                               "(a key with the ops scope)", [],
            _json("PipelineHealth", "Per stage"), 401, 403, 429, 503),
        "/answers/{answer_id}": {"get": {
            "summary": "The answer viewer page", "operationId": "answer_viewer",
            "parameters": [_path("answer_id", "the answer")], "responses": {"200": html}}},
        "/dashboard": {"get": {"summary": "The dashboard page", "operationId": "dashboard",
                               "responses": {"200": html}}},
    }
