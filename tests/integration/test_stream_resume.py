"""SSE on real parts: the gateway app with the real hub
under uvicorn, the embedded broker, the store sink process (`citeflow run store`) writing
SQLite and PostgreSQL. 200 answers are published to answers.formatted while a client
disconnects and reconnects with Last-Event-ID three times: it sees all 200 once, in
order, and none of another tenant's. With a tiny ring the gaps are served from the store."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from prometheus_client import REGISTRY

from services.gateway.app import core_routes, create_app
from services.gateway.settings import GatewaySettings
from services.gateway.stream import Hub, HubLimits, routes
from services.runtime.kafka import make_producer
from services.store.sql import SqlStore
from tests.integration.conftest import WAIT_S, Harness
from tests.services.gateway.stream.helpers import formatted, read_events, serve

pytestmark = pytest.mark.integration
ANSWERS = 200
RECONNECTS = 3


def _resumes(source: str) -> float:
    return REGISTRY.get_sample_value("citeflow_stream_resumes_total",
                                     {"source": source}) or 0.0


@pytest.mark.parametrize("ring_frames", [4096, 8], ids=["from-ring", "from-store"])
def test_reconnecting_client_sees_all_200_once_in_order(harness: Harness, store_url: str,
                                                        ring_frames: int) -> None:
    url = store_url
    harness.create_topics(["store"])
    harness.start("store", CITEFLOW_STORE_URL=url)
    source = "ring" if ring_frames > ANSWERS else "store"
    before = _resumes(source)
    received, positions, retries = asyncio.run(_scenario(harness, url, ring_frames))

    assert len(received) == ANSWERS
    assert sorted(received) == sorted(positions)  # every acme answer, no other tenant's
    by_partition: dict[int, list[int]] = {}
    for answer_id in received:
        partition, offset = positions[answer_id]
        by_partition.setdefault(partition, []).append(offset)
    for offsets in by_partition.values():
        assert offsets == sorted(offsets)  # in order
    # Every resumed stream counts, including one told to come back (store_behind).
    assert _resumes(source) - before == RECONNECTS + retries


async def _scenario(harness: Harness, url: str,
                    ring_frames: int) -> tuple[list[str], dict[str, tuple[int, int]], int]:
    store = SqlStore(url)
    await store.migrate()
    _, key = await store.create_key("acme", frozenset({"stream"}))
    hub = Hub(harness.config, store, HubLimits(ring_frames=ring_frames))
    app = create_app(GatewaySettings(store_url=url, runtime=harness.config), store=store,
                     hub=hub, routes=[*core_routes(), *routes()])
    try:
        # The app's lifespan starts and stops the hub.
        async with serve(app) as base, httpx.AsyncClient(base_url=base, timeout=60) as client:
            while not hub.ready():
                await asyncio.sleep(0.05)
            positions: dict[str, tuple[int, int]] = {}
            received: list[str] = []
            follower = asyncio.create_task(_follow(client, key, received))
            publisher: asyncio.Task[None] | None = None
            try:
                async with asyncio.timeout(WAIT_S):
                    # A stream without Last-Event-ID starts at its subscription: publishing
                    # before it would leave the client waiting for answers it never gets.
                    while hub.clients == 0 and not follower.done():
                        await asyncio.sleep(0.01)
                    publisher = asyncio.create_task(_publish(harness, positions))
                    await publisher  # a failed publish fails the test at once
                    retries = await follower
            except TimeoutError:
                raise AssertionError(_stuck(hub, received, positions)) from None
            finally:
                for task in (follower, publisher):
                    if task is not None:
                        task.cancel()
            return received, positions, retries
    finally:
        await store.close()


def _stuck(hub: Hub, received: list[str], positions: dict[str, tuple[int, int]]) -> str:
    """Where the answers the client lacks were lost: never read by the hub, read but not
    in its ring, or in the ring and not delivered."""
    missing = sorted(set(positions) - set(received))
    in_ring = {f.answer_id for f in hub.ring.frames}
    read = {tp[1]: offset for tp, offset in hub.vector.items()
            if tp[0] == "answers.formatted"}
    lost = [(a, *positions[a], "in ring" if a in in_ring else
             "read" if positions[a][1] <= read.get(positions[a][0], -1) else "not read")
            for a in missing[:20]]
    return (f"no end within {WAIT_S} s: {len(received)} of {len(positions)} published "
            f"answers received; feed {hub.feed.state}, hub read up to {read}; missing "
            f"(answer, partition, offset, where): {lost}")


async def _publish(harness: Harness, positions: dict[str, tuple[int, int]]) -> None:
    """200 acme answers (and every 4th, one of another tenant) one at a time, acked."""
    producer = make_producer(harness.config)
    await producer.start()
    try:
        for i in range(ANSWERS):
            for tenant, answer_id in [("acme", f"ans-{i:03d}")] + (
                    [("other", f"other-{i:03d}")] if i % 4 == 0 else []):
                message = formatted(answer_id, 0, tenant=tenant)
                sent = await (await producer.send(
                    harness.config.physical("answers.formatted"), message.value,
                    key=message.key))
                if tenant == "acme":
                    positions[answer_id] = (sent.partition, sent.offset)
            await asyncio.sleep(0.02)
    finally:
        await producer.stop()


async def _follow(client: httpx.AsyncClient, key: str, received: list[str]) -> int:
    """Read the stream into `received`, dropping the connection after every 50 answers
    (three times) and coming back a second later with the last id received. Returns how
    many times the gateway said the store was behind and the client came back."""
    last_id: str | None = None
    drops = retries = 0
    while len(received) < ANSWERS:
        headers = {"Authorization": f"Bearer {key}"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        behind = False
        async with client.stream("GET", "/v1/stream", headers=headers) as response:
            assert response.status_code == 200
            async for event in read_events(response):
                if event.event == "error" and event.json().get("code") == "store_behind":
                    behind = True  # the store has not caught up yet: come back, as told
                    break
                assert event.event not in ("error", "overflow"), event
                if event.event != "formatted":
                    continue
                received.append(event.json()["answer_id"])
                last_id = event.id
                if drops < RECONNECTS and len(received) >= 50 * (drops + 1):
                    break
                if len(received) == ANSWERS:
                    break
        if behind:
            retries += 1
            await asyncio.sleep(0.2)
        elif len(received) < ANSWERS:
            drops += 1
            await asyncio.sleep(1.0)
    assert drops == RECONNECTS
    return retries
