"""Stream faults on real parts: the broker becomes unreachable under a connected SSE client
(the test's own embedded broker, stopped with SIGSTOP and resumed with SIGCONT: an outage
that keeps the data, as a real Kafka's does): the client stays connected, is told
`degraded` then `live`, and receives what is published after."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from services.broker import create_topics, free_port, start_broker
from services.gateway.app import core_routes, create_app
from services.gateway.settings import GatewaySettings
from services.gateway.stream import Hub, HubLimits, routes
from services.gateway.stream.positions import STREAM_TOPICS
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_producer
from services.store.sql import SqlStore
from tests.services.gateway.stream.helpers import Event, formatted, read_events, serve

pytestmark = pytest.mark.integration
PREFIX = "faults."
WAIT_S = 90.0


def test_broker_down_and_back_the_client_stays_connected(tmp_path: Path) -> None:
    broker = start_broker(free_port())
    try:
        asyncio.run(_scenario(broker.bootstrap, broker.pid, tmp_path))
    finally:
        os.kill(broker.pid, signal.SIGCONT)
        broker.stop()


async def _scenario(bootstrap: str, broker_pid: int, tmp_path: Path) -> None:
    config = RuntimeConfig.from_env({}, bootstrap_servers=bootstrap, topic_prefix=PREFIX,
                                    retry_base_ms=100, retry_max_ms=1000)
    await create_topics(bootstrap, [PREFIX + t for t in STREAM_TOPICS], 2)
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    store = SqlStore(url)
    await store.migrate()
    _, key = await store.create_key("acme", frozenset({"stream"}))
    hub = Hub(config, store, HubLimits(heartbeat_s=1.0))
    app = create_app(GatewaySettings(store_url=url, runtime=config), store=store, hub=hub,
                     routes=[*core_routes(), *routes()])
    try:
        # The app's lifespan starts and stops the hub.
        async with serve(app) as base, httpx.AsyncClient(base_url=base, timeout=WAIT_S) as client:
            await _until(hub.ready)
            async with client.stream("GET", "/v1/stream",
                                     headers={"Authorization": f"Bearer {key}"}) as response:
                await _outage(config, broker_pid, read_events(response))
    finally:
        await store.close()


async def _outage(config: RuntimeConfig, broker_pid: int,
                  events: AsyncIterator[Event]) -> None:
    """A record before, the broker stopped and resumed, a record after: all on one
    connection, with the status in between."""
    assert (await _next_event(events, "status")).json()["state"] == "live"
    await _publish(config, "before")
    assert (await _next_event(events, "formatted")).json()["answer_id"] == "before"

    os.kill(broker_pid, signal.SIGSTOP)
    assert (await _next_event(events, "status")).json()["state"] == "degraded"
    os.kill(broker_pid, signal.SIGCONT)
    assert (await _next_event(events, "status")).json()["state"] == "live"
    await _publish(config, "after")
    assert (await _next_event(events, "formatted")).json()["answer_id"] == "after"


async def _publish(config: RuntimeConfig, answer_id: str) -> None:
    producer = make_producer(config)
    await producer.start()
    try:
        message = formatted(answer_id, 0)
        await (await producer.send(config.physical("answers.formatted"), message.value,
                                   key=message.key))
    finally:
        await producer.stop()


async def _next_event(events: AsyncIterator[Event], kind: str) -> Event:
    """The next event of `kind` (others are skipped), within WAIT_S."""

    async def find() -> Event:
        async for event in events:
            if event.event == kind:
                return event
        raise AssertionError(f"the stream ended before a {kind} event")

    return await asyncio.wait_for(find(), WAIT_S)


async def _until(predicate: object) -> None:
    async def wait() -> None:
        while not predicate():  # type: ignore[operator]
            await asyncio.sleep(0.05)

    await asyncio.wait_for(wait(), WAIT_S)
