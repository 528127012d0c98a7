"""`/openapi.json`, built from the same definitions the code uses: the stages' pydantic
event models (AnswerSubmitted in, AnswerFormatted out; a provider line is ProviderAnswer
without its `provider`, which the path names), the query-parameter models, and the typed
response documents. Nothing is hand-copied from them."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter

from schemas.answers import PROVIDERS, AnswerSubmitted, ProviderAnswer
from schemas.formatted import AnswerFormatted
from services.gateway.documents import openapi as reader_openapi
from services.gateway.problems import ProblemDocument
from services.gateway.queries import AnswerListParams, StatsParams
from services.gateway.reads import AnswerPage, StatsDocument
from services.gateway.representation import STATUS_HEADER, AnswerStatus
from services.gateway.submit import AcceptedDocument, BatchDocument

_REF = "#/components/schemas/{model}"
_JSON = "application/json"
_PROBLEM = "application/problem+json"
# Every type whose JSON Schema becomes a component: (type, mode, component name).
_COMPONENTS: list[tuple[Any, str, str]] = [
    (AnswerSubmitted, "validation", "AnswerSubmitted"),
    (AnswerFormatted, "serialization", "AnswerFormatted"),
    (AnswerStatus, "serialization", "AnswerStatus"),
    (AcceptedDocument, "serialization", "AcceptedDocument"),
    (BatchDocument, "serialization", "BatchDocument"),
    (AnswerPage, "serialization", "AnswerPage"),
    (StatsDocument, "serialization", "StatsDocument"),
    (ProblemDocument, "serialization", "ProblemDocument"),
    *((kind, "serialization", name) for kind, name in reader_openapi.COMPONENTS),
]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(model=name)}


def _components() -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for kind, mode, name in _COMPONENTS:
        schema = TypeAdapter(kind).json_schema(mode=mode, ref_template=_REF)  # type: ignore[arg-type]
        schemas.update(schema.pop("$defs", {}))
        schemas[name] = schema
    schemas["ProviderLine"] = _provider_line(schemas)
    return schemas


def _provider_line(schemas: dict[str, Any]) -> dict[str, Any]:
    """A line of a provider's responses: ProviderAnswer (`citeflow.answer.provider.v1`)
    without `provider`, which the path names."""
    schema = TypeAdapter(ProviderAnswer).json_schema(mode="validation", ref_template=_REF)
    schemas.update(schema.pop("$defs", {}))
    schema["properties"].pop("provider")
    schema["required"] = [name for name in schema["required"] if name != "provider"]
    schema["title"] = "ProviderLine"
    schema["description"] = ("An LLM provider's own response (and the request, where the "
                             "sources live only there) with the answer's id, query, options "
                             "and metadata: a line of `citeflow process --from PROVIDER`.")
    return schema


def _query(model: type[BaseModel]) -> list[dict[str, Any]]:
    """Query parameters from a parameter model's fields."""
    schema = model.model_json_schema(ref_template=_REF)
    required = set(schema.get("required", ()))
    return [
        {"name": name, "in": "query", "required": name in required,
         "description": prop.pop("description", ""), "schema": prop}
        for name, prop in schema["properties"].items()
    ]


def _problems(*statuses: int) -> dict[str, Any]:
    return {str(s): {"description": _PROBLEM_TEXT[s],
                     "content": {_PROBLEM: {"schema": _ref("ProblemDocument")}}}
            for s in statuses}


_PROBLEM_TEXT = {
    400: "Malformed input (invalid JSON or UTF-8, not an object, a bad parameter)",
    401: "Missing, unknown or revoked API key",
    403: "The key lacks the scope, or the body names another tenant",
    404: "No such answer for this key's tenant",
    409: "This tenant's answer_id holds another body, or the Idempotency-Key is in flight",
    413: "Body over the ingest limit (never read past it)",
    422: "Invalid answer (every invalid field with its JSON path), or an Idempotency-Key "
         "reused with another payload",
    429: "Over the key's rate; see Retry-After",
    503: "Broker or store unreachable; see Retry-After (nothing was acknowledged)",
}
_AUTH: list[dict[str, list[str]]] = [{"bearer": []}]
_WAIT = {"name": "wait", "in": "query", "required": False,
         "description": "hold the request up to this many seconds for the result"}
_PROVIDER = {"name": "provider", "in": "path", "required": True,
             "description": "the LLM API whose response the body holds (404 for another)",
             "schema": {"type": "string", "enum": list(PROVIDERS)}}
_IDEMPOTENCY = {"name": "Idempotency-Key", "in": "header", "required": False,
                "description": "IETF httpapi Idempotency-Key", "schema": {"type": "string",
                                                                        "maxLength": 255}}


def _json_body(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {_JSON: {"schema": _ref(name)}}}


@cache
def openapi_document(max_wait_s: float) -> dict[str, Any]:
    answer_or_status = {"oneOf": [_ref("AnswerFormatted"), _ref("AnswerStatus")]}
    unknown_provider = {**_problems(404)["404"],
                        "description": "No such provider (the problem lists the known ones)"}
    paths: dict[str, Any] = {
        "/v1/answers": {
            "post": {
                "summary": "Submit one answer (answer.submitted data)",
                "operationId": "submit_answer", "security": _AUTH,
                "parameters": [{**_WAIT, "schema": {"type": "number", "minimum": 0,
                                                     "maximum": max_wait_s}},
                               _IDEMPOTENCY],
                "requestBody": {"required": True,
                                "content": {_JSON: {"schema": _ref("AnswerSubmitted")}}},
                "responses": {
                    "202": {**_json_body("AcceptedDocument", "Stored by the broker"),
                            "headers": {"Location": {"schema": {"type": "string"}}}},
                    "200": {"description": "The result, ready within `wait`",
                            "content": {_JSON: {"schema": answer_or_status}}},
                    **_problems(400, 401, 403, 409, 413, 422, 429, 503),
                },
            },
            "get": {
                "summary": "List answers of the key's tenant, filtered, newest first",
                "operationId": "list_answers", "security": _AUTH,
                "parameters": _query(AnswerListParams),
                "responses": {"200": _json_body("AnswerPage", "A page of answers"),
                              **_problems(400, 401, 403, 429, 503)},
            },
        },
        "/v1/answers:batch": {
            "post": {
                "summary": "Submit answers as JSON Lines (one answer.submitted per line)",
                "operationId": "submit_batch", "security": _AUTH,
                "parameters": [_IDEMPOTENCY],
                "requestBody": {"required": True,
                                "content": {"application/x-ndjson": {
                                    "schema": {"type": "string"}}}},
                "responses": {"200": _json_body("BatchDocument", "One result per line"),
                              **_problems(401, 403, 409, 413, 422, 429, 503)},
            },
        },
        "/v1/providers/{provider}/answers": {
            "post": {
                "summary": "Submit one LLM provider's response (a line of `citeflow process "
                           "--from PROVIDER`), produced as its normalised answer.submitted",
                "operationId": "submit_provider_answer", "security": _AUTH,
                "parameters": [_PROVIDER,
                               {**_WAIT, "schema": {"type": "number", "minimum": 0,
                                                     "maximum": max_wait_s}},
                               _IDEMPOTENCY],
                "requestBody": {"required": True,
                                "content": {_JSON: {"schema": _ref("ProviderLine")}}},
                "responses": {
                    "202": {**_json_body("AcceptedDocument", "Stored by the broker"),
                            "headers": {"Location": {"schema": {"type": "string"}}}},
                    "200": {"description": "The result, ready within `wait`",
                            "content": {_JSON: {"schema": answer_or_status}}},
                    **_problems(400, 401, 403, 409, 413, 422, 429, 503),
                    "404": unknown_provider,
                },
            },
        },
        "/v1/providers/{provider}/answers:batch": {
            "post": {
                "summary": "Submit a provider's responses as JSON Lines (one provider line "
                           "per line)",
                "operationId": "submit_provider_batch", "security": _AUTH,
                "parameters": [_PROVIDER, _IDEMPOTENCY],
                "requestBody": {"required": True,
                                "content": {"application/x-ndjson": {
                                    "schema": {"type": "string"}}}},
                "responses": {"200": _json_body("BatchDocument", "One result per line"),
                              **_problems(401, 403, 409, 413, 422, 429, 503),
                              "404": unknown_provider},
            },
        },
        "/v1/answers/{answer_id}": {
            "get": {
                "summary": "One answer: its answer.formatted data, or its status",
                "operationId": "get_answer", "security": _AUTH,
                "parameters": [
                    {"name": "answer_id", "in": "path", "required": True,
                     "description": "The answer's id; an input rejected without a readable "
                                    "id is kept under `@<topic>:<partition>:<offset>`",
                     "schema": {"type": "string"}},
                    {"name": "If-None-Match", "in": "header", "required": False,
                     "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {"description": "Formatted data, or the status document",
                            "headers": {"ETag": {"schema": {"type": "string"}},
                                        STATUS_HEADER: {"schema": {"type": "string"}}},
                            "content": {_JSON: {"schema": answer_or_status}}},
                    "304": {"description": "Not modified"},
                    **_problems(401, 403, 404, 429, 503),
                },
            },
        },
        "/v1/answers/{answer_id}/versions": {
            "get": {
                "summary": "An answer's earlier results, kept when recomputed ones replaced "
                           "them (CITEFLOW_STORE_VERSIONS), the newest replaced first",
                "operationId": "get_versions", "security": _AUTH,
                "parameters": [{"name": "answer_id", "in": "path", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {
                    "200": {"description": "The current result's event id and the kept "
                                           "versions",
                            "content": {_JSON: {"schema": {"type": "object", "properties": {
                                "answer_id": {"type": "string"},
                                "tenant": {"type": "string"},
                                "status": {"type": "string"},
                                "event_id": {"type": ["string", "null"]},
                                "versions": {"type": "array", "items": {
                                    "type": "object", "properties": {
                                        "event_id": {"type": "string"},
                                        "event_time": {"type": "string",
                                                       "format": "date-time"},
                                        "replaced_at": {"type": "string",
                                                        "format": "date-time"},
                                        "replaced_by": {"type": "string"},
                                        "result": {"type": "object"}}}}}}}}},
                    **_problems(401, 403, 404, 429, 503),
                },
            },
        },
        "/v1/answers/{answer_id}/embed-token": {
            "post": {
                "summary": "A short-lived token reading only this answer and the documents "
                           "it cites, for a page that embeds the component",
                "operationId": "create_embed_token", "security": _AUTH,
                "parameters": [
                    {"name": "answer_id", "in": "path", "required": True,
                     "schema": {"type": "string"}},
                    {"name": "ttl", "in": "query", "required": False,
                     "description": "Lifetime in seconds (1 to 86400; default 3600)",
                     "schema": {"type": "integer", "minimum": 1, "maximum": 86400}},
                ],
                "responses": {
                    "200": {"description": "The token (a bearer credential), what it reads "
                                           "and when it expires",
                            "content": {_JSON: {"schema": {"type": "object", "properties": {
                                "token": {"type": "string"},
                                "answer_id": {"type": "string"},
                                "documents": {"type": "array", "items": {"type": "string"}},
                                "expires_at": {"type": "string", "format": "date-time"}}}}}},
                    **_problems(400, 401, 403, 404, 429, 503),
                },
            },
        },
        "/v1/stats": {
            "get": {
                "summary": "Citation quality by model or tenant over a window",
                "operationId": "get_stats", "security": _AUTH,
                "parameters": _query(StatsParams),
                "responses": {"200": _json_body("StatsDocument", "Groups of measures"),
                              **_problems(400, 401, 403, 429, 503)},
            },
        },
        "/healthz": {"get": {"summary": "The process serves", "operationId": "healthz",
                             "responses": {"200": {"description": "ok"}}}},
        "/readyz": {"get": {"summary": "Broker and store reachable", "operationId": "readyz",
                            "responses": {"200": {"description": "ready"},
                                          "503": {"description": "not ready"}}}},
    }
    paths.update(reader_openapi.paths())
    return {
        "openapi": "3.1.0",
        "info": {"title": "citeflow gateway", "version": "1",
                 "description": "Submit answers, read verified citations."},
        "paths": paths,
        "components": {
            "schemas": _components(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
