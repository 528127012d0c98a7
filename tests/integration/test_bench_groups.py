"""`citeflow bench groups` on the embedded broker: join, failover and restart times of the
runtime's group settings beside aiokafka's defaults and beside static membership, measured
in the same run."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from services.bench.groups import REFERENCE, measure
from services.broker import create_topics
from services.runtime.config import RuntimeConfig

pytestmark = pytest.mark.integration


def test_groups_bench_reports_join_and_failover_beside_the_reference(bootstrap: str) -> None:
    topic = f"bench-groups-{uuid.uuid4().hex[:8]}"
    asyncio.run(create_topics(bootstrap, [topic], 2))
    config = RuntimeConfig.from_env({}, bootstrap_servers=bootstrap)
    reference, ours, static = asyncio.run(measure(config, topic, 2, runs=1))
    assert (reference.session_timeout_ms, reference.heartbeat_interval_ms) == (
        REFERENCE["session_timeout_ms"], REFERENCE["heartbeat_interval_ms"])
    assert (ours.session_timeout_ms, ours.heartbeat_interval_ms) == (6000, 1000)
    assert (static.session_timeout_ms, static.heartbeat_interval_ms) == (6000, 1000)
    assert [t.static for t in (reference, ours, static)] == [False, False, True]
    for times in (reference, ours, static):
        assert times.join_s > 0 and times.failover_s > 0 and times.restart_s > 0
