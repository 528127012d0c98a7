"""Pipeline health from the broker (the embedded Tansu): the true lag of the group really
consuming a stage's input, with a known backlog; and the gateway's ops views (`/v1/pipeline`,
`/metrics`) still answering while the results store (PostgreSQL) is down."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import orjson
import pytest
from aiokafka import TopicPartition
from click.testing import CliRunner

from services.cli import main
from services.runtime.dead_letters import Record
from services.runtime.group_lag import pipeline_health
from services.runtime.kafka import make_consumer
from services.runtime.topic_io import publish
from services.stages import STAGE_NAMES
from services.store.sql import SqlStore
from tests.integration.conftest import Harness
from tests.integration.test_gateway_pipeline import Gateway

pytestmark = pytest.mark.integration


async def _consume(harness: Harness, group: str, count: int, stay: bool) -> Any:
    """A member of `group` on answers.accepted that consumed and committed `count` records;
    returned still running when `stay` (a consuming group), else stopped."""
    topic = harness.prefix + "answers.accepted"
    consumer = make_consumer(harness.config, topic, group_id=group)
    await consumer.start()
    done = 0
    while done < count:
        batches = await consumer.getmany(timeout_ms=500, max_records=count - done)
        for tp, records in batches.items():
            done += len(records)
            await consumer.commit({tp: records[-1].offset + 1})
    if not stay:
        await consumer.stop()
    return consumer


def test_lag_is_every_waiting_record_of_the_group_consuming(harness: Harness) -> None:
    harness.create_topics([*STAGE_NAMES, "store"])
    custom = f"custom-scoring-{uuid.uuid4().hex[:6]}"  # as CITEFLOW_GROUP_ID would name it

    async def go() -> dict[str, Any]:
        # One key: one partition, sent together: batches of many records, whose ends
        # Tansu's ListOffsets reports short.
        await publish(harness.config, [Record("answers.accepted", b"v%d" % i, b"one-key", [])
                                       for i in range(100)])
        stale = harness.config.group_for("scoring")
        await _consume(harness, stale, 10, stay=False)
        member = await _consume(harness, custom, 30, stay=True)
        try:
            shown = await asyncio.to_thread(
                CliRunner().invoke, main, ["lag", "--json", "--bootstrap", harness.bootstrap,
                                           "--prefix", harness.prefix], catch_exceptions=False)
            assert shown.exit_code == 0, shown.output
            cli = next(s for s in orjson.loads(shown.stdout)["stages"] if s["stage"] == "scoring")
            assert cli["lag"] == 70 and cli["group"] == custom
            return await pipeline_health(harness.config)
        finally:
            await member.stop()

    health = asyncio.run(go())
    scoring = next(s for s in health["stages"] if s["stage"] == "scoring")
    assert scoring["lag"] == 70
    assert scoring["group"] == custom and scoring["consuming"] is True
    groups = {g["group"]: g for g in scoring["groups"]}
    assert groups[custom]["members"] == 1
    # The stopped group stays listed (Tansu even keeps its member), behind the live one.
    assert groups[harness.config.group_for("scoring")]["lag"] == 90
    citations = next(s for s in health["stages"] if s["stage"] == "citations")
    assert citations["lag"] == 0 and citations["consuming"] is False


async def _ops_key(url: str) -> str:
    store = SqlStore(url)
    try:
        await store.migrate()
        _, secret = await store.create_key("acme", frozenset({"ops"}))
        return secret
    finally:
        await store.close()


def test_ops_views_answer_while_the_store_is_down(harness: Harness, pg_server: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    if not pg_server.can_restart:
        pytest.fail("this test stops the PostgreSQL server: it needs a local cluster")
    harness.create_topics([*STAGE_NAMES, "store"])
    url = pg_server.new_database()
    key = asyncio.run(_ops_key(url))
    auth = {"Authorization": f"Bearer {key}"}
    asyncio.run(publish(harness.config, [Record("answers.accepted", b"x", b"k", [])] * 5))
    monkeypatch.setenv("CITEFLOW_KEY_CACHE_SECONDS", "0.2")
    gateway = Gateway(harness, url)
    gateway.start()
    with httpx.Client(base_url=gateway.url, timeout=30) as client:
        assert client.get("/v1/pipeline", headers=auth).status_code == 200
        pg_server.stop()
        try:
            # Once the key's short verdict cache expired, checking it needs the store: a
            # route outside the ops views (a 403 for this key while cached) is a 503 ...
            harness.wait_for(lambda: client.get("/v1/answers", headers=auth).status_code
                             == 503, "key checks failing with the store down")
            # ... and the ops views still answer, with the pipeline's figures.
            pipeline = client.get("/v1/pipeline", headers=auth)
            assert pipeline.status_code == 200
            scoring = next(s for s in pipeline.json()["stages"] if s["stage"] == "scoring")
            assert scoring["lag"] == 5
            metrics = client.get("/metrics", headers=auth)
            assert metrics.status_code == 200 and "citeflow_http_requests_total" in metrics.text
            assert client.get("/v1/pipeline", headers={
                "Authorization": "Bearer not-a-key-at-all"}).status_code in (401, 503)
        finally:
            pg_server.start()


def test_true_ends_on_an_empty_partition(harness: Harness) -> None:
    from services.runtime.topic_io import end_offsets

    harness.create_topics(["scoring"])
    tp = TopicPartition(harness.prefix + "answers.scored", 0)
    assert asyncio.run(end_offsets(harness.config, [tp])) == {tp: 0}
