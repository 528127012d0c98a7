"""The stream hub's view of how far the store sink has written (a resuming client is served
from the store only past it), on the embedded broker, with the store's group run under
another name (`CITEFLOW_GROUP_ID`) than the gateway's default."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from services.gateway.stream.sink_progress import SinkProgress
from services.runtime.dead_letters import Record
from services.runtime.kafka import make_consumer
from services.runtime.topic_io import publish
from services.stages import STAGE_NAMES
from tests.integration.conftest import Harness

pytestmark = pytest.mark.integration


def test_the_sink_progress_follows_the_store_group_actually_consuming(
        harness: Harness) -> None:
    harness.create_topics([*STAGE_NAMES, "store"])
    custom = f"store-{uuid.uuid4().hex[:6]}"  # as CITEFLOW_GROUP_ID=... citeflow run store
    topics = ("answers.submitted", "answers.formatted")  # read by the store sink only

    async def go() -> tuple[str, bool, bool]:
        await publish(harness.config, [Record(t, b"v", b"one-key", []) for t in topics])
        consumer = make_consumer(harness.config, *(harness.prefix + t for t in topics),
                                 group_id=custom)
        await consumer.start()
        try:
            needed: dict[tuple[str, int], int] = {}
            while len(needed) < len(topics):
                for tp, records in (await consumer.getmany(timeout_ms=500)).items():
                    await consumer.commit({tp: records[-1].offset + 1})
                    needed[(harness.config.logical(tp.topic), tp.partition)] = (
                        records[-1].offset)
            progress = SinkProgress(harness.config)  # the gateway knows no CITEFLOW_GROUP_ID
            written = await progress.written(needed)
            beyond = await progress.written({k: v + 1 for k, v in needed.items()})
            return await progress.group(), written, beyond
        finally:
            await consumer.stop()

    group, written, beyond = asyncio.run(go())
    assert group == custom and harness.config.group_for("store") != custom
    assert written is True and beyond is False
