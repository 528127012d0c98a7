"""POST /v1/answers and :batch: validation by the ingest stage's code, tenancy, duplicates,
idempotency keys, broker outages, ?wait=, size limits (unit tests over in-memory fakes)."""

from __future__ import annotations

import asyncio
import json

import orjson

from services.gateway.body import read_limited
from services.ingest.answers import admit_data
from tests.services.gateway.conftest import SETTINGS, Gw, answer, body

PROBLEM = "application/problem+json"


async def test_submit_is_acknowledged_with_location_and_tenant_stamped(gw: Gw) -> None:
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    assert r.status_code == 202
    assert r.headers["location"] == "/v1/answers/a-1"
    assert r.json()["answer_id"] == "a-1"
    [(sent, tenant, _)] = gw.producer.sent
    assert tenant == "acme" and sent.metadata == {"model": "m-1", "tenant": "acme"}
    assert gw.store.answers["a-1"].status == "submitted"
    assert gw.store.answers["a-1"].tenant == "acme"


async def test_a_body_naming_another_tenant_is_refused(gw: Gw) -> None:
    r = await gw.client.post("/v1/answers", headers=gw.auth(),
                             content=body(answer("a-1", metadata={"tenant": "other"})))
    assert r.status_code == 403
    assert r.json()["path"] == "$.metadata.tenant"
    assert not gw.producer.sent


async def test_invalid_json_and_invalid_utf8_are_400_problems(gw: Gw) -> None:
    for raw, code in ((b'{"answer_id": "x", ', "invalid_json"),
                      (b'{"answer_id": "\xff\xfe"}', "invalid_utf8"),
                      (b"[1, 2]", "not_an_object")):
        r = await gw.client.post("/v1/answers", content=raw, headers=gw.auth())
        assert r.status_code == 400, raw
        assert r.headers["content-type"] == PROBLEM
        assert r.json()["code"] == code
    assert not gw.producer.sent


async def test_wrong_types_name_the_json_path_of_every_invalid_field(gw: Gw) -> None:
    bad = answer("a-1")
    bad["sources"][0]["index"] = "one"
    bad["sources"][1]["chunks"][0]["page"] = 0
    bad["text"] = 5
    r = await gw.client.post("/v1/answers", content=body(bad), headers=gw.auth())
    assert r.status_code == 422
    problem = r.json()
    paths = {e["path"] for e in problem["errors"]}
    assert paths == {"$.text", "$.sources[0].index", "$.sources[1].chunks[0].page"}
    # The same rejection the ingest stage gives the same bytes: one definition.
    rejected = admit_data(body(bad), event_id="x")
    assert problem["code"] == rejected.code  # type: ignore[union-attr]
    assert problem["errors"] == [e.model_dump() for e in rejected.errors]  # type: ignore[union-attr]


async def test_unknown_fields_of_an_answer_are_ignored_as_the_contract_says(gw: Gw) -> None:
    r = await gw.client.post("/v1/answers", headers=gw.auth(),
                             content=body(answer("a-1", shiny_new_field=1)))
    assert r.status_code == 202


async def test_over_size_declared_body_is_413_before_reading(gw: Gw) -> None:
    raw = body(answer("a-1", text="x" * (SETTINGS.max_answer_bytes + 1)))
    r = await gw.client.post("/v1/answers", content=raw, headers=gw.auth())
    assert r.status_code == 413
    assert r.json()["limit_bytes"] == SETTINGS.max_answer_bytes


async def test_the_limit_measures_the_answer_as_produced(gw: Gw) -> None:
    """The limit is what ingest measures: the answer's weight, from its JSON with every field
    written. A body under it whose sources and chunks leave their defaults out can exceed it
    as produced: 413 with the limit, nothing produced."""
    chunks = [{"text": "c"} for _ in range(SETTINGS.max_answer_bytes // 60)]
    raw = body(answer("a-1", sources=[{"index": 1, "kind": "web", "chunks": chunks}]))
    assert len(raw) < SETTINGS.max_answer_bytes
    r = await gw.client.post("/v1/answers", content=raw, headers=gw.auth())
    assert r.status_code == 413
    assert r.json()["limit_bytes"] == SETTINGS.max_answer_bytes
    assert "every field written" in r.json()["detail"]


async def test_streamed_body_is_never_read_past_the_limit(gw: Gw) -> None:
    """Raw ASGI, no Content-Length: the gateway stops asking for body chunks once past the
    limit, however many more the client would send."""
    chunk = b"x" * 8192
    delivered = 0
    messages: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        nonlocal delivered
        delivered += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: dict[str, object]) -> None:
        messages.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "path": "/v1/answers", "raw_path": b"/v1/answers",
             "query_string": b"", "root_path": "", "scheme": "http",
             "server": ("gw", 80), "client": ("127.0.0.1", 1),
             "headers": [(b"authorization", f"Bearer {gw.key}".encode()),
                         (b"content-type", b"application/json")],
             "state": {}}
    await asyncio.wait_for(gw.app(scope, receive, send), 10)
    assert messages[0]["status"] == 413
    assert delivered <= SETTINGS.max_answer_bytes + len(chunk)


async def test_read_limited_accepts_exactly_the_limit(gw: Gw) -> None:
    from starlette.requests import Request

    sent = [b"a" * 10, b"b" * 6]

    async def receive() -> dict[str, object]:
        part = sent.pop(0)
        return {"type": "http.request", "body": part, "more_body": bool(sent)}

    request = Request({"type": "http", "headers": [], "method": "POST"}, receive)
    assert await read_limited(request, 16) == b"a" * 10 + b"b" * 6


async def test_same_body_again_is_the_same_response_and_is_produced_once(gw: Gw) -> None:
    first = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    # Other whitespace and key order: the same answer.
    again = orjson.dumps(orjson.loads(body(answer("a-1"))), option=orjson.OPT_SORT_KEYS |
                         orjson.OPT_INDENT_2)
    second = await gw.client.post("/v1/answers", content=again, headers=gw.auth())
    assert (second.status_code, second.content) == (first.status_code, first.content)
    assert len(gw.producer.sent) == 1


async def test_another_body_under_the_same_answer_id_is_409(gw: Gw) -> None:
    await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    r = await gw.client.post("/v1/answers", content=body(answer("a-1", query="other?")),
                             headers=gw.auth())
    assert r.status_code == 409
    assert r.json()["code"] == "answer_id_conflict"
    assert "another body" in r.json()["detail"]
    assert len(gw.producer.sent) == 1


async def test_concurrent_duplicates_are_produced_once(gw: Gw) -> None:
    results = await asyncio.gather(*(
        gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
        for _ in range(5)))
    assert {r.status_code for r in results} == {202}
    assert len(gw.producer.sent) == 1


async def test_submitted_is_visible_while_the_broker_is_asked(gw: Gw) -> None:
    """One store write before producing: the status exists from the first moment."""
    seen = []
    send = gw.producer.send

    async def spying_send(*args, **kwargs):
        seen.append(await gw.store.get("a-1", "acme"))
        return await send(*args, **kwargs)

    gw.producer.send = spying_send  # type: ignore[method-assign]
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    assert r.status_code == 202
    assert [s.status if s else None for s in seen] == ["submitted"]


async def test_a_claim_not_known_stored_is_produced_again(gw: Gw) -> None:
    """A same-body repeat whose first claim this process did not see acknowledged (another
    worker in flight, or one that died) is produced again, never acknowledged unproduced;
    once the sink saw it on the topic, it is not."""
    submitter = gw.app.state.submitter
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    assert r.status_code == 202 and len(gw.producer.sent) == 1
    submitter._acked.clear()  # as another worker sees the claim
    again = await gw.client.post("/v1/answers", content=body(answer("a-1")),
                                 headers=gw.auth())
    assert (again.status_code, again.content) == (202, r.content)
    assert len(gw.producer.sent) == 2
    gw.store.mark_stored("a-1")
    submitter._acked.clear()
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    assert r.status_code == 202 and len(gw.producer.sent) == 2


async def test_idempotency_key_replays_refuses_reuse_and_in_flight(gw: Gw) -> None:
    headers = {**gw.auth(), "Idempotency-Key": '"k-1"'}
    first = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=headers)
    replay = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=headers)
    assert first.status_code == replay.status_code == 202
    assert replay.content == first.content
    assert replay.headers["location"] == "/v1/answers/a-1"
    reused = await gw.client.post("/v1/answers", content=body(answer("a-2")), headers=headers)
    assert reused.status_code == 422
    assert reused.json()["code"] == "idempotency_key_reused"
    # A claim still in flight (status 0) answers 409.
    await gw.store.claim_idempotency_key("acme", "k-2", "whatever")
    busy = await gw.client.post("/v1/answers", content=body(answer("a-3")),
                                headers={**gw.auth(), "Idempotency-Key": "k-2"})
    assert busy.status_code == 409
    assert busy.json()["code"] == "idempotency_key_in_flight"
    assert len(gw.producer.sent) == 1


async def test_broker_down_is_503_with_retry_after_and_nothing_recorded(gw: Gw) -> None:
    gw.producer.down = True
    headers = {**gw.auth(), "Idempotency-Key": "k-1"}
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=headers)
    assert r.status_code == 503
    assert int(r.headers["retry-after"]) > 0
    assert r.headers["content-type"] == PROBLEM
    assert "a-1" not in gw.store.answers
    # The 503 released the key: the retry once the broker is back is processed.
    gw.producer.down = False
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=headers)
    assert r.status_code == 202
    assert len(gw.producer.sent) == 1


async def test_a_failed_produce_releases_only_its_own_claim(gw: Gw) -> None:
    """A same-body repeat of a claim it did not make keeps that claim when its produce
    fails (the first claimant's produce may still succeed)."""
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    assert r.status_code == 202
    gw.app.state.submitter._acked.clear()
    gw.producer.down = True
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    assert r.status_code == 503
    assert gw.store.answers["a-1"].status == "submitted"


async def test_store_down_at_submit_is_503_and_nothing_produced(gw: Gw) -> None:
    key = gw.key
    await gw.client.get("/v1/answers", headers=gw.auth(key))  # caches the key
    gw.store.down = True
    r = await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    assert r.status_code == 503 and "retry-after" in r.headers
    assert not gw.producer.sent


async def test_wait_returns_the_formatted_result_when_it_arrives(gw: Gw) -> None:
    formatted = b'{"answer_id":"a-1","text":"t"}'

    async def deliver_soon() -> None:
        while ("a-1", "acme") not in gw.hub.waiting:
            await asyncio.sleep(0.01)
        gw.hub.deliver(gw.store.finish("a-1", "formatted", formatted))

    task = asyncio.create_task(deliver_soon())
    r = await gw.client.post("/v1/answers?wait=5", content=body(answer("a-1")),
                             headers=gw.auth())
    await task
    assert r.status_code == 200
    assert r.content == formatted
    assert r.headers["citeflow-status"] == "formatted"
    assert r.headers["location"] == "/v1/answers/a-1"


async def test_wait_runs_out_with_202(gw: Gw) -> None:
    r = await gw.client.post("/v1/answers?wait=0.2", content=body(answer("a-1")),
                             headers=gw.auth())
    assert r.status_code == 202


async def test_wait_finds_a_result_already_in_the_store(gw: Gw) -> None:
    """A result stored before the wait was registered is not missed."""
    await gw.client.post("/v1/answers", content=body(answer("a-1")), headers=gw.auth())
    gw.store.finish("a-1", "rejected", reason="invalid_value")
    r = await gw.client.post("/v1/answers?wait=5", content=body(answer("a-1")),
                             headers=gw.auth())
    assert r.status_code == 200
    assert r.json()["status"] == "rejected" and r.json()["reason"] == "invalid_value"


async def test_wait_is_bounded(gw: Gw) -> None:
    for value in ("-1", "31", "soon", "nan"):
        r = await gw.client.post(f"/v1/answers?wait={value}", content=body(answer("a-1")),
                                 headers=gw.auth())
        assert r.status_code == 400, value
        assert r.json()["path"] == "?wait"
    assert not gw.producer.sent


async def test_batch_gives_one_result_per_line(gw: Gw) -> None:
    lines = b"\n".join([body(answer("b-1")), b"{not json", b"", body(answer("b-2")),
                        body(answer("b-3", metadata={"tenant": "other"}))])
    r = await gw.client.post("/v1/answers:batch", content=lines, headers=gw.auth())
    assert r.status_code == 200
    doc = r.json()
    assert (doc["accepted"], doc["refused"]) == (2, 2)
    by_line = {item["line"]: item for item in doc["results"]}
    assert by_line[1]["status"] == 202 and by_line[1]["location"] == "/v1/answers/b-1"
    assert by_line[2]["status"] == 400 and by_line[2]["problem"]["code"] == "invalid_json"
    assert by_line[4]["status"] == 202
    assert by_line[5]["status"] == 403
    assert sorted(a.answer_id for a, _, _ in gw.producer.sent) == ["b-1", "b-2"]


async def test_batch_over_the_line_limit_is_413(gw: Gw) -> None:
    lines = b"\n".join([b"{}"] * (SETTINGS.max_batch_lines + 1))
    r = await gw.client.post("/v1/answers:batch", content=lines, headers=gw.auth())
    assert r.status_code == 413
    assert r.json()["code"] == "too_many_lines"


async def test_integers_beyond_64_bits_are_accepted_and_hashed(gw: Gw) -> None:
    """Found by the OpenAPI fuzz: orjson cannot write them; the hash falls back."""
    big = answer("a-big", metadata={"n": 2**70})
    big["sources"][0]["year"] = 2**65
    first = await gw.client.post("/v1/answers", content=body_std(big), headers=gw.auth())
    assert first.status_code == 202
    again = await gw.client.post("/v1/answers", content=body_std(big), headers=gw.auth())
    assert again.content == first.content and len(gw.producer.sent) == 1


def body_std(obj: object) -> bytes:
    return json.dumps(obj).encode()


async def test_two_tenants_submitting_one_answer_id_each_get_their_own(gw: Gw) -> None:
    """Answer ids are per tenant: another tenant's submit of the same answer_id (at the same
    moment, so in one claim batch; again alone; in a batch) is a 202 of its own answer,
    never a 409 that tells it the id exists, and each tenant reads and waits for only its
    own answer."""
    other = await gw.key_for("globex", "submit", "read")
    ours, theirs = answer("a-1"), answer("a-1", query="another question?")
    first, second = await asyncio.gather(
        gw.client.post("/v1/answers", content=body(ours), headers=gw.auth()),
        gw.client.post("/v1/answers", content=body(theirs), headers=gw.auth(other)))
    assert (first.status_code, second.status_code) == (202, 202)
    assert first.json()["event_id"] != second.json()["event_id"]
    # Again with the same bodies: the same answers (not produced again once acknowledged);
    # and with another body under one's own id: the tenant's own conflict only.
    for key, sent in ((gw.key, ours), (other, theirs)):
        r = await gw.client.post("/v1/answers", content=body(sent), headers=gw.auth(key))
        assert r.status_code == 202
    assert sorted(tenant for _, tenant, _ in gw.producer.sent) == ["acme", "globex"]
    conflict = await gw.client.post("/v1/answers", headers=gw.auth(other),
                                    content=body(answer("a-1", query="a third?")))
    assert conflict.status_code == 409
    # Each reads its own answer under the id.
    assert gw.store.answers[("a-1", "acme")].body_sha256 != \
        gw.store.answers[("a-1", "globex")].body_sha256
    for key, tenant in ((gw.key, "acme"), (other, "globex")):
        r = await gw.client.get("/v1/answers/a-1", headers=gw.auth(key))
        assert r.status_code == 200 and r.json()["tenant"] == tenant
    # A batch of ids the other tenant holds (b-1 even with acme's very body): every line a
    # 202; only another body under globex's own a-1 is a 409.
    await gw.client.post("/v1/answers:batch", content=body(answer("b-1")), headers=gw.auth())
    lines = b"\n".join([body(answer("b-1")), body(theirs), body(answer("a-1"))])
    r = await gw.client.post("/v1/answers:batch", content=lines, headers=gw.auth(other))
    assert [line["status"] for line in r.json()["results"]] == [202, 202, 409]
    assert gw.store.answers[("b-1", "globex")].tenant == "globex"
    assert gw.store.answers[("b-1", "acme")].tenant == "acme"


async def test_wait_takes_only_the_outcome_of_the_tenants_own_answer(gw: Gw) -> None:
    """?wait= of tenant acme is not answered by tenant globex's result of the same id."""
    other = await gw.key_for("globex", "submit", "read")
    await gw.client.post("/v1/answers", content=body(answer("a-1", query="theirs?")),
                         headers=gw.auth(other))
    theirs = gw.store.finish(("a-1", "globex"), "formatted", b'{"answer_id":"a-1"}')
    ours = b'{"answer_id":"a-1","text":"ours"}'

    async def deliver_soon() -> None:
        while ("a-1", "acme") not in gw.hub.waiting:
            await asyncio.sleep(0.01)
        gw.hub.deliver(theirs)  # another tenant's: not this wait's
        gw.hub.deliver(gw.store.finish(("a-1", "acme"), "formatted", ours))

    task = asyncio.create_task(deliver_soon())
    r = await gw.client.post("/v1/answers?wait=5", content=body(answer("a-1")),
                             headers=gw.auth())
    await task
    assert r.status_code == 200 and r.content == ours
