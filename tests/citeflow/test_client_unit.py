"""The client's request logic against scripted HTTP exchanges (httpx.MockTransport): one
Idempotency-Key across a submit's retries, Retry-After honoured, a 409 in-flight retried,
problems raised as CiteflowError, cursor pages followed, the stream resumed with
Last-Event-ID, configuration from the environment."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import orjson
import pytest

from citeflow.client import (
    Accepted,
    AsyncClient,
    CiteflowError,
    Client,
    RetryInfo,
    RetryPolicy,
)
from tests.citeflow.test_client_gateway import _answers

ACCEPTED = {"answer_id": "a-1", "event_id": "e", "status": "submitted",
            "location": "/v1/answers/a-1"}


def _problem(status: int, code: str, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers={"content-type": "application/problem+json",
                                           **headers},
                          json={"type": "x", "title": "t", "status": status, "code": code,
                                "detail": f"{code} detail"})


def _scripted(replies: list[httpx.Response]) -> tuple[list[httpx.Request], httpx.MockTransport]:
    seen: list[httpx.Request] = []
    script: Iterator[httpx.Response] = iter(replies)

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return next(script)

    return seen, httpx.MockTransport(handle)


def _client(transport: httpx.BaseTransport, seen: list[RetryInfo]) -> Client:
    return Client("http://gw", "key", transport=transport,
                  retry=RetryPolicy(attempts=5, base=0.01, cap=0.02, on_retry=seen.append))


def test_a_submit_keeps_its_idempotency_key_across_retries_and_honours_retry_after() -> None:
    requests, transport = _scripted([
        _problem(429, "rate_limited", **{"Retry-After": "1"}),
        _problem(503, "unavailable", **{"Retry-After": "0"}),
        _problem(409, "idempotency_key_in_flight", **{"Retry-After": "0"}),
        httpx.Response(202, json=ACCEPTED)])
    retries: list[RetryInfo] = []
    with _client(transport, retries) as client:
        assert isinstance(client.submit(_answers(1, "k")[0]), Accepted)
    keys = {r.headers["idempotency-key"] for r in requests}
    assert len(requests) == 4 and len(keys) == 1
    assert requests[0].headers["authorization"] == "Bearer key"
    assert [r.status for r in retries] == [429, 503, 409]
    assert retries[0].retry_after == 1.0 and retries[0].delay >= 1.0


def test_two_submits_get_two_keys_and_a_given_key_is_kept() -> None:
    requests, transport = _scripted([httpx.Response(202, json=ACCEPTED)] * 3)
    with _client(transport, []) as client:
        answer = _answers(1, "k")[0]
        client.submit(answer)
        client.submit(answer)
        client.submit(answer, idempotency_key="mine")
    keys = [r.headers["idempotency-key"] for r in requests]
    assert keys[0] != keys[1] and keys[2] == "mine"


def test_a_refusal_is_one_error_type_with_the_problem() -> None:
    _, transport = _scripted([_problem(422, "invalid_answer")])
    with _client(transport, []) as client, pytest.raises(CiteflowError) as caught:
        client.submit({"answer_id": "x", "text": "t", "sources": []})
    assert caught.value.status == 422 and caught.value.code == "invalid_answer"
    assert caught.value.problem["detail"] == "invalid_answer detail"


def test_retries_end_with_the_last_answer() -> None:
    _, transport = _scripted([_problem(503, "unavailable", **{"Retry-After": "0"})] * 5)
    retries: list[RetryInfo] = []
    with _client(transport, retries) as client, pytest.raises(CiteflowError) as caught:
        client.get("a-1")
    assert caught.value.status == 503 and len(retries) == 4


def test_network_errors_are_retried_then_reported() -> None:
    calls = 0

    def handle(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise httpx.ConnectError("refused", request=request)

    retries: list[RetryInfo] = []
    with _client(httpx.MockTransport(handle), retries) as client, \
            pytest.raises(CiteflowError) as caught:
        client.submit(_answers(1, "n")[0])
    assert caught.value.code == "network_error" and calls == 5 and len(retries) == 4


def test_list_follows_the_cursor_pages() -> None:
    def item(n: int) -> dict[str, object]:
        return {"answer_id": f"a-{n}", "tenant": "t", "status": "formatted",
                "updated_at": "2026-11-27T00:00:00Z"}

    requests, transport = _scripted([
        httpx.Response(200, json={"items": [item(1), item(2)], "next_cursor": "c2",
                                  "next": "/v1/answers?cursor=c2"}),
        httpx.Response(200, json={"items": [item(3)], "next_cursor": None, "next": None})])
    with _client(transport, []) as client:
        ids = [a.answer_id for a in client.list(limit=2, has_problems=False)]
    assert ids == ["a-1", "a-2", "a-3"]
    assert requests[0].url.params["has_problems"] == "false"
    assert requests[1].url.params["cursor"] == "c2" and requests[1].url.params["limit"] == "2"


def _sse(*events: tuple[str, str]) -> bytes:
    out = b": keep-alive\n\n"
    for position, answer_id in events:
        data = {"answer_id": answer_id, "tenant": "t", "status": "formatted",
                "result": None, "summary": None}
        out += (f"id: {position}\nevent: formatted\ndata: ".encode() + orjson.dumps(data)
                + b"\n\n")
    return out + b'event: status\ndata: {"state": "stopping"}\n\n'


def test_the_stream_resumes_after_the_last_event(monkeypatch: pytest.MonkeyPatch) -> None:
    bodies = [_sse(("p1", "a-1"), ("p2", "a-2")), _sse(("p3", "a-3"))]
    requests, transport = _scripted([
        httpx.Response(200, content=b, headers={"content-type": "text/event-stream"})
        for b in bodies])
    with _client(transport, []) as client:
        stream = client.stream(view="full")
        seen = []
        for event in stream:
            seen.append((event.id, event.answer_id))
            if len(seen) == 3:
                stream.close()
    assert seen == [("p1", "a-1"), ("p2", "a-2"), ("p3", "a-3")]
    assert "last-event-id" not in requests[0].headers
    assert requests[1].headers["last-event-id"] == "p2" and stream.reconnects == 1


def test_url_and_key_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEFLOW_URL", "http://elsewhere:9/")
    monkeypatch.setenv("CITEFLOW_API_KEY", "from-env")
    requests, transport = _scripted([httpx.Response(202, json=ACCEPTED)])
    with Client(transport=transport) as client:
        client.submit(_answers(1, "e")[0])
    assert str(requests[0].url).startswith("http://elsewhere:9/v1/answers")
    assert requests[0].headers["authorization"] == "Bearer from-env"


def test_the_async_client_retries_the_same_way() -> None:
    replies = [_problem(503, "unavailable", **{"Retry-After": "0"}),
               httpx.Response(202, json=ACCEPTED)]
    seen: list[httpx.Request] = []

    async def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return replies[len(seen) - 1]

    async def go() -> object:
        async with AsyncClient("http://gw", "k", transport=httpx.MockTransport(handle),
                               retry=RetryPolicy(base=0.01, cap=0.02)) as client:
            return await client.submit(_answers(1, "a")[0], wait=5)

    assert isinstance(asyncio.run(go()), Accepted)
    assert seen[0].url.params["wait"] == "5"
    assert seen[0].headers["idempotency-key"] == seen[1].headers["idempotency-key"]




def test_a_refused_submit_is_raised_by_wait_until_a_later_one_is_taken() -> None:
    answer = _answers(1, "r")[0]
    requests, transport = _scripted([_problem(409, "answer_id_conflict"),
                                     httpx.Response(202, json=ACCEPTED),
                                     httpx.Response(200, json={"answer_id": "a-1", "tenant": "t", "status": "rejected"},
                                                    headers={"citeflow-status": "rejected"})])
    with _client(transport, []) as client:
        with pytest.raises(CiteflowError):
            client.submit(answer)
        with pytest.raises(CiteflowError, match="answer_id_conflict.*new answer_id"):
            client.wait(answer["answer_id"])
        client.submit(answer, idempotency_key="again")
        assert client.wait(answer["answer_id"]).final
    assert [r.method for r in requests] == ["POST", "POST", "GET"]


def test_the_viewer_url_carries_the_key_in_its_fragment() -> None:
    with Client("http://gw:8000/", "k/1+2") as client:
        assert client.viewer_url("a b") == "http://gw:8000/answers/a%20b#key=k%2F1%2B2"
    with Client("http://gw:8000", "") as client:
        client.api_key = None
        assert client.viewer_url("a") == "http://gw:8000/answers/a"


def test_a_network_error_names_the_address_and_what_to_do() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with _client(httpx.MockTransport(refuse), []) as client, \
            pytest.raises(CiteflowError) as raised:
        client.get("a")
    assert "http://gw" in str(raised.value) and "gateway running" in str(raised.value)


def test_wait_document_polls_until_ingest_is_done_with_it() -> None:
    def document(status: str) -> httpx.Response:
        return httpx.Response(200, json={"doc_id": "book", "status": status, "format": "epub",
                                         "sections": 3 if status == "ingested" else None})

    requests, transport = _scripted([
        httpx.Response(202, json={"doc_id": "book", "status": "submitted"}),
        _problem(404, "not_found"), document("submitted"), document("ingested"),
        document("rejected")])
    with _client(transport, []) as client:
        assert not client.upload_document(b"x", doc_id="book", filename="b.epub").final
        ready = client.wait_document("book", poll=0.01)
        assert (ready.status, ready.final, ready.sections) == ("ingested", True, 3)
        assert client.document("book").status == "rejected"
    assert [r.url.path for r in requests][1:] == ["/v1/documents/book"] * 4


def test_wait_document_times_out_naming_the_document() -> None:
    _, transport = _scripted([httpx.Response(200, json={"doc_id": "b", "status": "submitted"})]
                             * 50)

    async def go() -> None:
        async with AsyncClient("http://gw", "k", transport=transport) as client:
            await client.wait_document("b", timeout=0.05, poll=0.01)

    with pytest.raises(CiteflowError, match="timeout: b not final in 0.05 s"):
        asyncio.run(go())
