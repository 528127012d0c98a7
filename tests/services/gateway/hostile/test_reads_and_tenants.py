"""Keys, scopes, tenants and what the gateway serves, tried as an attacker would
(traversal, injection, scopes, tenant reads, CSP)."""

from __future__ import annotations

import secrets
import threading
from urllib.parse import quote

import httpx
import orjson
import pymupdf
import pytest

from tests.integration.conftest import small_answers
from tests.services.gateway.hostile.conftest import Hostile

pytestmark = pytest.mark.integration


def _pdf(text: str) -> bytes:
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), text)
    return document.tobytes()


def _upload(hostile: Hostile, key: str, doc_id: str, data: bytes) -> httpx.Response:
    return httpx.post(hostile.url + "/v1/documents", headers=hostile.auth(key),
                      files={"file": ("d.pdf", data)}, data={"doc_id": doc_id}, timeout=30)


def test_random_keys_are_limited_per_address_and_valid_keys_keep_working(
        hostile: Hostile) -> None:
    with httpx.Client(base_url=hostile.url, timeout=10) as client:
        assert client.get("/v1/answers", headers=hostile.auth(hostile.a)).status_code == 200
        statuses = [client.get("/v1/answers", headers={
            "Authorization": f"Bearer cf_{secrets.token_hex(8)}_{secrets.token_urlsafe(32)}"}
        ).status_code for _ in range(60)]
        assert set(statuses) <= {401, 429} and 429 in statuses
        limited = client.get("/v1/answers", headers={"Authorization": "Bearer nope"})
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        # The valid key (cached in the worker) is not refused for its address's flood.
        assert client.get("/v1/answers", headers=hostile.auth(hostile.a)).status_code == 200


def test_with_no_proxy_configured_no_forwarded_address_is_believed(hostile: Hostile) -> None:
    """Loopback was a trusted proxy by default (uvicorn's FORWARDED_ALLOW_IPS): from
    127.0.0.1, naming a new client in X-Forwarded-For with every request escaped the
    per-address limit (40 bad keys, 40 store lookups, no 429). With no proxy configured,
    the limit is the connecting address's, whatever the request claims."""
    def random_key(claimed: str) -> int:
        return httpx.get(hostile.url + "/v1/answers", timeout=10, headers={
            "Authorization": f"Bearer {secrets.token_hex(16)}",
            "X-Forwarded-For": claimed}).status_code

    statuses = [random_key(f"203.0.113.{i}") for i in range(1, 41)]
    assert 429 in statuses, statuses


def test_metrics_and_pipeline_need_the_ops_scope(hostile: Hostile) -> None:
    with httpx.Client(base_url=hostile.url, timeout=30) as client:
        assert client.get("/metrics", headers=hostile.auth(hostile.b)).status_code == 403
        assert client.get("/v1/pipeline", headers=hostile.auth(hostile.b)).status_code == 403
        metrics = client.get("/metrics", headers=hostile.auth(hostile.ops))
        assert metrics.status_code == 200 and "citeflow_http_requests_total" in metrics.text
        assert client.get("/v1/pipeline", headers=hostile.auth(hostile.ops)).status_code in (
            200, 503)  # 503: the probe could not reach the broker in time


@pytest.mark.parametrize("path", [
    "/static/vendor/.package-lock.json", "/static/vendor/uplot/package.json",
    "/static/vendor/swagger-ui-dist/package.json", "/static/vendor/uplot/dist/uPlot.esm.js",
    "/static/vendor/..%2f..%2f..%2fapp.py", "/static/app/..%2f..%2fapp.py",
    "/static/vendor/uplot/../../docs.py",
])
def test_only_allow_listed_static_files_are_served(hostile: Hostile, path: str) -> None:
    assert httpx.get(hostile.url + path, timeout=10).status_code == 404


def test_traversal_and_sql_metacharacters_in_ids_find_nothing(hostile: Hostile) -> None:
    with httpx.Client(base_url=hostile.url, timeout=10, headers=hostile.auth(hostile.a)
                      ) as client:
        for answer_id in ("x' OR '1'='1", "x\"; DROP TABLE answers; --", "../../etc/passwd"):
            assert client.get("/v1/answers/" + quote(answer_id, safe="")).status_code == 404
        listed = client.get("/v1/answers", params={"model": "' OR 1=1 --"})
        assert listed.status_code == 200 and listed.json()["items"] == []
        for doc_id in ("..%2f..%2fetc%2fpasswd", "%2e%2e", "..."):
            assert client.get(f"/v1/documents/{doc_id}/pages/1.png").status_code == 404
        for doc_id in (".", "..", "..."):
            refused = _upload(hostile, hostile.a, doc_id, _pdf("x"))
            assert refused.status_code == 400 and refused.json()["code"] == "invalid_parameter"


def test_two_tenants_racing_for_one_doc_id_each_get_their_own(hostile: Hostile) -> None:
    """Both were told 202 in 2 of 15 races, one then got 404 and ingest results crossed
    tenants; later a doc_id another tenant used was a 409 (an existence oracle). Each tenant
    has its own doc_ids now: both 202, each reads its own document, ingested."""
    for round_ in range(5):
        doc_id = f"race-{round_}-{secrets.token_hex(4)}"
        statuses: dict[str, httpx.Response] = {}
        barrier = threading.Barrier(2)

        def upload(key: str, name: str, text: str) -> None:
            data = _pdf(text)
            barrier.wait()
            statuses[name] = _upload(hostile, key, doc_id, data)

        threads = [threading.Thread(target=upload, args=(hostile.a, "a", "from a")),
                   threading.Thread(target=upload, args=(hostile.b, "b", "from b"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert [statuses[n].status_code for n in "ab"] == [202, 202]
        for name, key in (("a", hostile.a), ("b", hostile.b)):
            own = hostile.document_status(key, doc_id, {"ingested", "rejected"})
            assert own["status"] == "ingested"
            assert own["sha256"] == statuses[name].json()["sha256"]


def test_reads_of_a_tenant_say_no_store_and_pages_carry_a_csp(hostile: Hostile) -> None:
    with httpx.Client(base_url=hostile.url, timeout=10, headers=hostile.auth(hostile.a)
                      ) as client:
        assert client.get("/v1/answers").headers["cache-control"] == "no-store"
        assert client.get("/v1/stats").headers["cache-control"] == "no-store"
        doc_id = f"cc-{secrets.token_hex(4)}"
        assert _upload(hostile, hostile.a, doc_id, _pdf("x")).status_code == 202
        assert client.get(f"/v1/documents/{doc_id}").headers["cache-control"] == "no-store"
        dashboard = client.get("/dashboard")
        assert "default-src" in dashboard.headers["content-security-policy"]


def test_worst_documents_through_ingest_and_the_reader(hostile: Hostile) -> None:
    """A 54 KB EPUB inflating to GBs, and a sub-KB PDF of one 4500x4500 pt page at scale 4
    (324 megapixels, 6.6 s in the gateway), through the real ingest stage and sink."""
    from services.bench.hostile import _bomb

    bomb = f"bomb-{secrets.token_hex(4)}"
    assert httpx.post(hostile.url + "/v1/documents", headers=hostile.auth(hostile.a),
                      files={"file": ("b.epub", _bomb())}, data={"doc_id": bomb},
                      timeout=30).status_code == 202
    status = hostile.document_status(hostile.a, bomb, {"rejected", "ingested", "dead_lettered"})
    assert status["status"] == "rejected" and status["reason"] == "zip_bomb", status
    refused = httpx.get(f"{hostile.url}/v1/documents/{bomb}/chapters/c0.xhtml",
                        headers=hostile.auth(hostile.a), timeout=10)
    assert refused.status_code == 409 and refused.json()["code"] == "document_rejected"

    huge = f"huge-{secrets.token_hex(4)}"
    document = pymupdf.open()
    document.new_page(width=4500, height=4500).insert_text((72, 72), "huge")
    assert _upload(hostile, hostile.a, huge, document.tobytes()).status_code == 202
    assert hostile.document_status(hostile.a, huge, {"ingested", "rejected"})["status"] == (
        "ingested")
    page = httpx.get(f"{hostile.url}/v1/documents/{huge}/pages/1.png?scale=4",
                     headers=hostile.auth(hostile.a), timeout=60)
    assert page.status_code == 200
    rendered = pymupdf.Pixmap(page.content)
    assert rendered.width * rendered.height <= 12_000_000
    assert float(page.headers["x-render-scale"]) < 4
    assert page.headers["cache-control"] == "private, no-cache"
    # The other tenant learns nothing of it.
    assert httpx.get(f"{hostile.url}/v1/documents/{huge}/pages/1.png",
                     headers=hostile.auth(hostile.b), timeout=10).status_code == 404


def test_another_tenants_answer_ids_are_neither_an_oracle_nor_taken(hostile: Hostile) -> None:
    """tb submitting an answer_id ta uses was a 409 answer_id_conflict (an existence oracle,
    per line of :batch too), and tb submitting it first blocked ta for good. Each tenant has
    its own answer ids now: tb pre-submits ta's ids (alone and in a batch), both tenants
    then race for fresh ids; every submit is a 202 and each tenant reads its own answer."""
    tag = secrets.token_hex(4)
    taken = small_answers(3, prefix=f"taken-{tag}")
    raced = small_answers(4, prefix=f"raced-{tag}")

    def bodies(tenant: str, answers: list[dict[str, object]]) -> list[bytes]:
        return [orjson.dumps({**a, "metadata": {"model": f"m-{tenant}"}}) for a in answers]

    def submit(key: str, tenant: str, answers: list[dict[str, object]],
               found: dict[str, list[int]]) -> None:
        sent = bodies(tenant, answers)
        with httpx.Client(base_url=hostile.url, headers=hostile.auth(key), timeout=30) as c:
            statuses = [c.post("/v1/answers", content=sent[0]).status_code]
            batch = c.post("/v1/answers:batch", content=b"\n".join(sent[1:])).json()
            found[tenant] = statuses + [line["status"] for line in batch["results"]]

    found: dict[str, list[int]] = {}
    submit(hostile.b, "tb", taken, found)  # tb first, with ids ta is about to use
    submit(hostile.a, "ta", taken, found)
    assert found == {"tb": [202] * 3, "ta": [202] * 3}
    raced_found: dict[str, list[int]] = {}
    threads = [threading.Thread(target=submit, args=(key, tenant, raced, raced_found))
               for key, tenant in ((hostile.a, "ta"), (hostile.b, "tb"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert raced_found == {"tb": [202] * 4, "ta": [202] * 4}
    with httpx.Client(base_url=hostile.url, timeout=30) as client:
        for key, tenant in ((hostile.a, "ta"), (hostile.b, "tb")):
            for a in taken + raced:
                got = client.get(f"/v1/answers/{a['answer_id']}", headers=hostile.auth(key))
                assert got.status_code == 200
                doc = got.json()
                mine = doc.get("metadata") or doc  # formatted result, or status document
                assert (mine.get("tenant"), mine.get("model")) == (tenant, f"m-{tenant}"), doc
