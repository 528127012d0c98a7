"""`GET /v1/stream` over real HTTP: the gateway app (create_app) with the real hub under
uvicorn, read by httpx and by raw sockets. The hub is fed records directly (no broker:
the integration tests have that); keys live in the in-memory store of the unit tests."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from prometheus_client import REGISTRY

from services.gateway.app import core_routes, create_app
from services.gateway.stream import Hub, HubLimits, routes
from services.runtime.config import RuntimeConfig
from tests.services.gateway.conftest import SETTINGS
from tests.services.gateway.fakes import FakeProducer
from tests.services.gateway.stream.helpers import (
    FedHub,
    SinceStore,
    attach,
    formatted,
    read_events,
    serve,
)


@dataclass
class Served:
    url: str
    hub: Hub
    store: SinceStore
    key: str  # tenant acme, scope stream

    def auth(self, key: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {key or self.key}"}


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    store = SinceStore()
    hub = FedHub(RuntimeConfig(), store, HubLimits(client_buffer=8, heartbeat_s=0.2,
                                                   stall_s=0.5))
    attach(hub)
    app = create_app(SETTINGS, store=store, producer=FakeProducer(), hub=hub,  # type: ignore[arg-type]
                     routes=[*core_routes(), *routes()])
    _, key = await store.create_key("acme", frozenset({"stream"}))
    async with serve(app) as url:  # the app's lifespan starts and stops the hub
        yield Served(url, hub, store, key)


async def until(predicate: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "condition never held"
        await asyncio.sleep(0.01)


async def test_refusals_are_problem_json_before_the_stream(served: Served) -> None:
    _, read_only = await served.store.create_key("acme", frozenset({"read"}))
    async with httpx.AsyncClient(base_url=served.url) as client:
        cases = [
            ({}, "", 401),
            (served.auth("cf_unknown_key"), "", 401),
            (served.auth(read_only), "", 403),
            (served.auth(), "?tenant=other", 403),
            (served.auth(), "?min_coverage=2", 400),
            (served.auth(), "?min_coverage=abc", 400),
            (served.auth(), "?has_problems=maybe", 400),
            (served.auth(), "?include=everything", 400),
            (served.auth(), "?bogus=1", 400),
            (served.auth(), "?model=a&model=b", 400),
        ]
        for headers, query, status in cases:
            response = await client.get("/v1/stream" + query, headers=headers)
            assert response.status_code == status, (query, response.text)
            assert response.headers["content-type"] == "application/problem+json"
            assert response.json()["status"] == status
    assert served.hub.clients == 0


async def test_events_arrive_live_with_resumable_ids(served: Served) -> None:
    async with httpx.AsyncClient(base_url=served.url, timeout=10) as client:
        async with client.stream("GET", "/v1/stream", headers=served.auth()) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            events = read_events(response)
            first = await anext(events)
            assert first.event == "status" and first.json()["state"] == "live"
            for i in range(3):
                served.hub.publish(formatted(f"a-{i}", i))
            got = [await anext(events) for _ in range(3)]
            assert [e.json()["answer_id"] for e in got] == ["a-0", "a-1", "a-2"]
            assert got[0].json()["result"]["answer_id"] == "a-0"
        await until(lambda: served.hub.clients == 0)  # the disconnect freed it
        headers = {**served.auth(), "Last-Event-ID": got[0].id or ""}
        async with client.stream("GET", "/v1/stream", headers=headers) as response:
            events = read_events(response)
            assert (await anext(events)).event == "status"
            resumed = [await anext(events) for _ in range(2)]
            assert [e.json()["answer_id"] for e in resumed] == ["a-1", "a-2"]


async def test_heartbeats_keep_an_idle_stream_talking(served: Served) -> None:
    async with (httpx.AsyncClient(base_url=served.url, timeout=10) as client,
                client.stream("GET", "/v1/stream", headers=served.auth()) as response):
        text = ""
        async for chunk in response.aiter_text():
            text += chunk
            if text.count(": keep-alive") >= 2:
                break


async def test_a_client_that_stops_reading_is_cut_off_others_are_not(served: Served) -> None:
    overflows = REGISTRY.get_sample_value("citeflow_stream_overflows_total") or 0.0
    dropped = REGISTRY.get_sample_value("citeflow_stream_dropped_total") or 0.0
    host, port = served.url.removeprefix("http://").split(":")
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect((host, int(port)))
    raw.setblocking(False)
    request = (f"GET /v1/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {served.key}"
               "\r\n\r\n").encode()
    raw.sendall(request)
    async with (httpx.AsyncClient(base_url=served.url, timeout=30) as client,
                client.stream("GET", "/v1/stream", headers=served.auth()) as response):
        events = read_events(response)
        await anext(events)  # status
        await until(lambda: served.hub.clients == 2)
        received = []
        offset = 0
        # Publish until the silent client's socket and queue are full and it is cut off.
        while served.hub.clients == 2 and offset < 5000:
            for _ in range(4):
                served.hub.publish(formatted(f"a-{offset}", offset))
                offset += 1
            for _ in range(4):
                received.append((await anext(events)).json()["answer_id"])
        assert served.hub.clients == 1, "the silent client was never cut off"
        assert REGISTRY.get_sample_value("citeflow_stream_overflows_total") > overflows
        assert REGISTRY.get_sample_value("citeflow_stream_dropped_total") > dropped
        assert received == [f"a-{i}" for i in range(offset)]
    raw.close()


async def test_the_summary_view_leaves_the_result_out(served: Served) -> None:
    async with (httpx.AsyncClient(base_url=served.url, timeout=10) as client,
                client.stream("GET", "/v1/stream?view=summary",
                              headers=served.auth()) as response):
        events = read_events(response)
        await anext(events)  # status
        served.hub.publish(formatted("a-0", 0))
        event = (await anext(events)).json()
        assert event["answer_id"] == "a-0" and event["result"] is None
        assert event["summary"]["citations"] > 0
        frame = served.hub.ring.frames[-1]
        assert len(frame.lean_wire) < len(frame.wire) / 5
