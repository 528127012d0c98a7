"""A gateway app over the in-memory fakes (unit tests), driven through httpx's ASGI
transport inside the app's own lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest

from services.bench.workload import bench_answer
from services.gateway.app import core_routes, create_app
from services.gateway.settings import GatewaySettings
from tests.services.gateway.fakes import FakeHub, FakeProducer, FakeStore


@dataclass
class Gw:
    app: Any
    client: httpx.AsyncClient
    store: FakeStore
    producer: FakeProducer
    hub: FakeHub
    key: str  # submit + read, tenant "acme"

    async def key_for(self, tenant: str, *scopes: str, rate: float | None = None) -> str:
        _, secret = await self.store.create_key(tenant, frozenset(scopes), rate_per_s=rate)
        return secret

    def auth(self, key: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {key or self.key}"}


def answer(answer_id: str = "a-1", **changes: Any) -> dict[str, Any]:
    body = bench_answer(answer_id, words=60, citations=3, sources=2, chunks_per_source=1,
                        chunk_chars=200, verbatim_units=1, seed=1)
    body["metadata"] = {"model": "m-1"}
    body.update(changes)
    return body


def body(obj: Any) -> bytes:
    return orjson.dumps(obj)


SETTINGS = GatewaySettings(store_url="memory://", max_answer_bytes=64 * 1024,
                           rate_per_s=1000.0, key_cache_seconds=0.05, max_wait_s=5.0,
                           unauthenticated_rate_per_s=1000.0, unauthenticated_burst=1000.0)


@pytest.fixture
async def gw() -> AsyncIterator[Gw]:
    store, producer, hub = FakeStore(), FakeProducer(), FakeHub()
    app = create_app(SETTINGS, store=store, producer=producer, hub=hub,  # type: ignore[arg-type]
                     routes=core_routes())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            _, key = await store.create_key("acme", frozenset({"submit", "read"}))
            yield Gw(app, client, store, producer, hub, key)
