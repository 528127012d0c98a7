"""What every response carries (CSP and friends, request id, problem+json for errors),
health, readiness, metrics, the OpenAPI document and the vendored docs."""

from __future__ import annotations

import re

import orjson
import structlog
from pydantic import TypeAdapter

from schemas.answers import AnswerSubmitted
from schemas.formatted import AnswerFormatted
from services.gateway.docs import VENDOR_DIR
from services.gateway.observability import CONTENT_SECURITY_POLICY
from tests.services.gateway.conftest import Gw, answer, body


async def test_every_response_has_the_security_headers(gw: Gw) -> None:
    responses = [
        await gw.client.get("/healthz"),
        await gw.client.get("/nowhere"),
        await gw.client.delete("/v1/answers/a-1", headers=gw.auth()),
        await gw.client.post("/v1/answers", content=b"{", headers=gw.auth()),
        await gw.client.get("/openapi.json"),
        await gw.client.get("/static/app/docs-init.js"),
    ]
    for r in responses:
        assert r.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, r.url
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
        assert re.fullmatch(r"[0-9a-f]{32}", r.headers["x-request-id"])
    assert "'unsafe-inline'" not in CONTENT_SECURITY_POLICY
    assert responses[1].status_code == 404
    assert responses[1].headers["content-type"] == "application/problem+json"
    assert responses[2].status_code == 405


async def test_a_supplied_request_id_is_kept_and_a_hostile_one_replaced(gw: Gw) -> None:
    r = await gw.client.get("/healthz", headers={"X-Request-ID": "req-123"})
    assert r.headers["x-request-id"] == "req-123"
    r = await gw.client.get("/healthz", headers={"X-Request-ID": "<script>" * 20})
    assert re.fullmatch(r"[0-9a-f]{32}", r.headers["x-request-id"])


async def test_an_internal_error_is_a_problem_with_the_headers(gw: Gw) -> None:
    async def broken(*_: object) -> None:
        raise RuntimeError("a bug")

    gw.store.get = broken  # type: ignore[method-assign]
    r = await gw.client.get("/v1/answers/a-1", headers=gw.auth())
    assert r.status_code == 500
    assert r.json()["code"] == "internal_error" and "a bug" not in r.text
    assert r.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


async def test_access_log_is_bound_to_request_tenant_and_answer(gw: Gw) -> None:
    with structlog.testing.capture_logs() as logs:
        await gw.client.post("/v1/answers", content=body(answer("a-9")), headers=gw.auth())
    [line] = [entry for entry in logs if entry["event"] == "request"]
    assert line["tenant"] == "acme" and line["answer_id"] == "a-9"
    assert line["status"] == 202 and line["route"] == "/v1/answers"
    assert re.fullmatch(r"[0-9a-f]{32}", line["request_id"])


async def test_a_refusal_s_log_line_says_why(gw: Gw) -> None:
    bad = answer("a-10")
    bad["text"] = 5
    with structlog.testing.capture_logs() as logs:
        await gw.client.post("/v1/answers", content=body(bad), headers=gw.auth())
        await gw.client.get("/v1/answers/a-1")
    refused, unauthorized = [entry for entry in logs if entry["event"] == "request"]
    assert refused["status"] == 422 and refused["problem"] and refused["reason"]
    assert refused["problem_path"] == "$.text"
    assert unauthorized["status"] == 401 and unauthorized["problem"] == "unauthorized"


async def test_health_and_readiness(gw: Gw) -> None:
    assert (await gw.client.get("/healthz")).json() == {"status": "ok"}
    ready = await gw.client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["ready"] is True
    gw.producer.down = True
    gw.store.down = True
    r = await gw.client.get("/readyz")
    assert r.status_code == 503 and "retry-after" in r.headers
    assert r.json()["checks"] == {"broker": False, "store": False, "stream": True}


async def test_metrics_count_requests_by_route_template_and_status(gw: Gw) -> None:
    await gw.client.get("/v1/answers/some-id", headers=gw.auth())
    assert (await gw.client.get("/metrics")).status_code == 401
    assert (await gw.client.get("/metrics", headers=gw.auth())).status_code == 403
    ops = await gw.key_for("acme", "ops")
    text = (await gw.client.get("/metrics", headers=gw.auth(ops))).text
    assert re.search(r'citeflow_http_requests_total\{method="GET",route="/v1/answers/'
                     r'\{answer_id\}",status="404"\} [1-9]', text)
    assert "some-id" not in text
    assert "citeflow_http_request_seconds_bucket" in text


async def test_openapi_reuses_the_stage_models_schemas(gw: Gw) -> None:
    doc = (await gw.client.get("/openapi.json")).json()
    schemas = doc["components"]["schemas"]
    ref = "#/components/schemas/{model}"
    own = TypeAdapter(AnswerSubmitted).json_schema(ref_template=ref)
    for name, schema in own.pop("$defs").items():
        assert schemas[name] == schema
    assert schemas["AnswerSubmitted"] == own
    formatted = AnswerFormatted.model_json_schema(mode="serialization", ref_template=ref)
    formatted.pop("$defs")
    assert schemas["AnswerFormatted"] == formatted
    post = doc["paths"]["/v1/answers"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/AnswerSubmitted"}
    names = {p["name"] for p in doc["paths"]["/v1/answers"]["get"]["parameters"]}
    assert {"model", "since", "until", "has_problems", "min_coverage", "cursor"} <= names
    for text in re.findall(r'"\$ref":\s*"([^"]+)"', orjson.dumps(doc).decode()):
        assert text.removeprefix("#/components/schemas/") in schemas


async def test_docs_are_served_from_here_with_no_inline_script(gw: Gw) -> None:
    r = await gw.client.get("/docs")
    if not (VENDOR_DIR / "swagger-ui-dist").exists():
        assert r.status_code == 503 and "make vendor" in r.json()["detail"]
        return
    assert r.status_code == 200
    html = r.text
    assert "<script>" not in html and "http" not in html  # no inline code, no CDN
    for src in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert src.startswith("/static/")
        assert (await gw.client.get(src)).status_code == 200, src
