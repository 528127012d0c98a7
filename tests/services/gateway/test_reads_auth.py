"""Keys, scopes, tenants, rate limits and the read routes (unit tests over in-memory
fakes)."""

from __future__ import annotations

import asyncio

from services.gateway.stream.hub import record_of
from services.store.api import ResultUpdate
from services.store.decode import decode_record
from tests.services.gateway.conftest import Gw, answer, body
from tests.services.store import records

FORMATTED = b'{"answer_id":"a-1","text":"formatted"}'


async def _submitted(gw: Gw, answer_id: str = "a-1", key: str | None = None) -> None:
    r = await gw.client.post("/v1/answers", content=body(answer(answer_id)),
                             headers=gw.auth(key))
    assert r.status_code == 202


async def test_missing_malformed_and_unknown_keys_are_401(gw: Gw) -> None:
    for headers in ({}, {"Authorization": "Basic abc"}, {"Authorization": "Bearer "},
                    {"Authorization": "Bearer nope"}):
        r = await gw.client.get("/v1/answers/a-1", headers=headers)
        assert r.status_code == 401, headers
        assert r.headers["www-authenticate"].startswith("Bearer")
        assert r.headers["content-type"] == "application/problem+json"


async def test_a_revoked_key_stops_working_within_the_cache_ttl(gw: Gw) -> None:
    key = await gw.key_for("acme", "read")
    assert (await gw.client.get("/v1/answers", headers=gw.auth(key))).status_code == 200
    [api_key] = [k for k, s in gw.store.keys.values() if s == key]
    await gw.store.revoke_key(api_key.key_id)
    await asyncio.sleep(0.1)  # the fixture's key cache TTL is 0.05 s
    assert (await gw.client.get("/v1/answers", headers=gw.auth(key))).status_code == 401


async def test_verified_keys_are_cached(gw: Gw) -> None:
    for _ in range(5):
        await gw.client.get("/v1/answers", headers=gw.auth())
    assert gw.store.verify_calls == 1


async def test_missing_scope_is_403(gw: Gw) -> None:
    reader = await gw.key_for("acme", "read")
    r = await gw.client.post("/v1/answers", content=body(answer()), headers=gw.auth(reader))
    assert r.status_code == 403 and r.json()["code"] == "missing_scope"
    submitter = await gw.key_for("acme", "submit")
    r = await gw.client.get("/v1/answers/a-1", headers=gw.auth(submitter))
    assert r.status_code == 403


async def test_another_tenants_answer_is_404_never_403(gw: Gw) -> None:
    await _submitted(gw)
    other = await gw.key_for("globex", "read", "submit")
    r = await gw.client.get("/v1/answers/a-1", headers=gw.auth(other))
    assert r.status_code == 404
    missing = await gw.client.get("/v1/answers/never", headers=gw.auth(other))
    assert r.json()["detail"].replace("a-1", "X") == missing.json()["detail"].replace(
        "never", "X")
    listing = await gw.client.get("/v1/answers", headers=gw.auth(other))
    assert listing.json()["items"] == []
    asked = await gw.client.get("/v1/answers?tenant=acme", headers=gw.auth(other))
    assert asked.status_code == 403
    admin = await gw.key_for("ops", "admin")
    assert (await gw.client.get("/v1/answers/a-1", headers=gw.auth(admin))).status_code == 200


async def test_rate_limit_is_429_with_retry_after(gw: Gw) -> None:
    slow = await gw.key_for("acme", "read", rate=1.0)  # burst of 2
    statuses = [(await gw.client.get("/v1/answers", headers=gw.auth(slow))).status_code
                for _ in range(4)]
    assert statuses[:2] == [200, 200] and statuses[-1] == 429
    r = await gw.client.get("/v1/answers", headers=gw.auth(slow))
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    # Another key is not affected.
    assert (await gw.client.get("/v1/answers", headers=gw.auth())).status_code == 200


async def test_get_answer_in_flight_then_formatted_with_etag(gw: Gw) -> None:
    await _submitted(gw)
    r = await gw.client.get("/v1/answers/a-1", headers=gw.auth())
    assert r.status_code == 200
    assert r.json()["status"] == "submitted" and r.headers["citeflow-status"] == "submitted"
    gw.store.finish("a-1", "formatted", FORMATTED)
    r = await gw.client.get("/v1/answers/a-1", headers=gw.auth())
    assert r.content == FORMATTED and r.headers["citeflow-status"] == "formatted"
    tag = r.headers["etag"]
    again = await gw.client.get("/v1/answers/a-1", headers={**gw.auth(),
                                                            "If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    other = await gw.client.get("/v1/answers/a-1", headers={**gw.auth(),
                                                            "If-None-Match": '"stale"'})
    assert other.status_code == 200


async def test_a_failed_answer_shows_its_reason(gw: Gw) -> None:
    await _submitted(gw)
    gw.store.finish("a-1", "dead_lettered", reason="spans: ValueError")
    doc = (await gw.client.get("/v1/answers/a-1", headers=gw.auth())).json()
    assert doc["status"] == "dead_lettered" and doc["reason"] == "spans: ValueError"


async def test_a_rejected_input_without_an_id_reads_under_its_input_s_id(gw: Gw) -> None:
    update = decode_record(records.unkeyed_rejection(b"{not json", 2, 41))
    assert isinstance(update, ResultUpdate)
    gw.store.answers[update.answer_id] = record_of(update)  # as the store sink keeps it
    admin = await gw.key_for("ops", "admin")
    r = await gw.client.get("/v1/answers/%40answers.submitted%3A2%3A41", headers=gw.auth(admin))
    assert r.status_code == 200
    doc = r.json()
    assert (doc["answer_id"], doc["status"], doc["tenant"]) == (
        "@answers.submitted:2:41", "rejected", "default")
    assert (await gw.client.get("/v1/answers/@x%00", headers=gw.auth(admin))).status_code == 404


async def test_list_filters_reach_the_store_and_pages_link_on(gw: Gw) -> None:
    for n in range(3):
        await _submitted(gw, f"a-{n}")
    r = await gw.client.get(
        "/v1/answers?model=m-1&has_problems=true&min_coverage=0.5&invalid_citations=false"
        "&downgraded_quotes=true&status=formatted&since=2026-01-01T00:00:00Z&limit=2",
        headers=gw.auth())
    assert r.status_code == 200
    query = gw.store.answer_queries[-1]
    assert (query.tenant, query.model, query.has_problems, query.min_coverage) == (
        "acme", "m-1", True, 0.5)
    assert query.has_invalid_citations is False and query.has_downgraded_quotes is True
    assert query.since is not None and query.since.tzinfo is not None
    doc = r.json()
    assert len(doc["items"]) == 2 and doc["next_cursor"] == "next-page"
    assert "cursor=next-page" in doc["next"] and r.headers["link"].endswith('rel="next"')


async def test_bad_query_parameters_are_400_with_every_path(gw: Gw) -> None:
    r = await gw.client.get("/v1/answers?min_coverage=2&limit=0&colour=blue",
                            headers=gw.auth())
    assert r.status_code == 400
    paths = {e["path"]: e["code"] for e in r.json()["errors"]}
    assert paths == {"?min_coverage": "invalid_parameter", "?limit": "invalid_parameter",
                     "?colour": "unknown_parameter"}
    bad_cursor = await gw.client.get("/v1/answers?cursor=garbage", headers=gw.auth())
    assert bad_cursor.status_code == 400 and bad_cursor.json()["path"] == "?cursor"
    twice = await gw.client.get("/v1/answers?model=a&model=b", headers=gw.auth())
    assert twice.status_code == 400


async def test_stats_window_and_grouping(gw: Gw) -> None:
    await _submitted(gw)
    r = await gw.client.get("/v1/stats?group_by=tenant&window=7d&bucket=1d", headers=gw.auth())
    assert r.status_code == 200
    doc = r.json()
    assert doc["bucket_seconds"] == 86400 and doc["groups"][0]["answers"] == 1
    query = gw.store.stats_queries[-1]
    assert query.group_by == "tenant" and query.tenant == "acme"
    assert (query.until - query.since).days == 7
    for bad in ("window=0", "window=soon", "bucket=1s&window=7d", "window=9999d",
                "group_by=colour", "until=9999-12-31T23:59:59-23:59", "until=1900-01-01"):
        assert (await gw.client.get(f"/v1/stats?{bad}", headers=gw.auth())).status_code == 400


async def test_store_down_reads_are_503(gw: Gw) -> None:
    await gw.client.get("/v1/answers", headers=gw.auth())  # the key is cached
    gw.store.down = True
    for path in ("/v1/answers/a-1", "/v1/answers", "/v1/stats"):
        r = await gw.client.get(path, headers=gw.auth())
        assert r.status_code == 503, path
        assert r.headers["retry-after"] and r.json()["code"] == "store_unavailable"
    # A key not cached cannot be verified: 503 too, not 401.
    fresh = await gw.key_for("acme", "read")
    assert (await gw.client.get("/v1/answers", headers=gw.auth(fresh))).status_code == 503


async def test_a_result_the_hub_has_seen_is_read_before_the_store_has_it(gw: Gw) -> None:
    """?wait= answered from the hub; the store sink writes a moment later: GET by id gives
    the same result at once (never for another tenant)."""
    await _submitted(gw)
    from dataclasses import replace

    formatted = replace(gw.store.answers["a-1"], status="formatted", result=FORMATTED)
    gw.hub.waiting[("a-1", "acme")] = asyncio.get_running_loop().create_future()
    gw.hub.deliver(formatted)
    r = await gw.client.get("/v1/answers/a-1", headers=gw.auth())
    assert r.content == FORMATTED and r.headers["citeflow-status"] == "formatted"
    other = replace(formatted, tenant="globex")
    gw.hub.waiting[("a-1", "acme")] = asyncio.get_running_loop().create_future()
    gw.hub.deliver(other)
    r = await gw.client.get("/v1/answers/a-1", headers=gw.auth())
    assert r.headers["citeflow-status"] == "submitted"


async def test_times_at_the_edges_of_the_calendar_are_clear_errors_or_clamped(gw: Gw) -> None:
    """Found by probing: `until` near year 1 minus the window overflowed into a 500."""
    r = await gw.client.get("/v1/stats?until=1970-01-01T00:00:00Z&window=7d", headers=gw.auth())
    assert r.status_code == 200 and r.json()["since"] == "1970-01-01T00:00:00Z"
    for query in ("since=0001-01-01T00:00:00Z", "until=9999-12-31T23:59:59-23:59",
                  "since=2026-01-01T00:00:00"):
        r = await gw.client.get(f"/v1/answers?{query}", headers=gw.auth())
        assert r.status_code == (200 if query.startswith("since=2026") else 400), query


async def test_an_answers_kept_versions_are_read_by_its_tenant_only(gw: Gw) -> None:
    from datetime import UTC, datetime

    from services.store.api import ResultVersion

    await _submitted(gw)
    gw.store.finish("a-1", "formatted", FORMATTED)
    r = await gw.client.get("/v1/answers/a-1/versions", headers=gw.auth())
    assert r.status_code == 200 and r.json()["versions"] == []
    at = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)
    gw.store.kept_versions[("a-1", "acme")] = [
        ResultVersion("fmt-a-1", at, b'{"answer_id":"a-1","text":"before"}', at, "fmt-a-1~r1")]
    doc = (await gw.client.get("/v1/answers/a-1/versions", headers=gw.auth())).json()
    assert doc["answer_id"] == "a-1" and doc["tenant"] == "acme"
    assert doc["versions"] == [{"event_id": "fmt-a-1", "event_time": "2026-11-25T10:00:00Z",
                                "replaced_at": "2026-11-25T10:00:00Z",
                                "replaced_by": "fmt-a-1~r1",
                                "result": {"answer_id": "a-1", "text": "before"}}]
    other = await gw.key_for("globex", "read")
    assert (await gw.client.get("/v1/answers/a-1/versions",
                                headers=gw.auth(other))).status_code == 404
    assert (await gw.client.get("/v1/answers/never/versions",
                                headers=gw.auth())).status_code == 404
    gw.store.down = True
    assert (await gw.client.get("/v1/answers/a-1/versions",
                                headers=gw.auth())).status_code == 503
