"""`citeflow bench groups`: how long a consumer takes to join its group, and how long a
surviving member takes to own the partitions of one killed with SIGKILL, under the
runtime's group settings beside a reference (aiokafka's defaults), in the same run.

Join: a fresh group, one member, from `start()` to its first assignment. Failover: two
members (the victim a separate process, so SIGKILL leaves no LeaveGroup), from the kill to
the survivor owning every partition.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, replace
from statistics import median

from aiokafka import AIOKafkaConsumer

from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_consumer

# aiokafka's own defaults: the reference the runtime's settings are measured against.
REFERENCE = {"session_timeout_ms": 10_000, "heartbeat_interval_ms": 3_000}
_POLL_MS = 50
_LIMIT_S = 120.0


@dataclass(frozen=True)
class GroupTimes:
    """Median seconds of the runs of one setting."""

    name: str
    session_timeout_ms: int
    heartbeat_interval_ms: int
    join_s: float
    failover_s: float


async def _assigned(consumer: AIOKafkaConsumer, want: int) -> None:
    """Poll until the consumer owns `want` partitions (bounded)."""
    deadline = time.monotonic() + _LIMIT_S
    while len(consumer.assignment()) < want:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no assignment of {want} partitions in {_LIMIT_S} s")
        await consumer.getmany(timeout_ms=_POLL_MS)


async def join_time(config: RuntimeConfig, topic: str, partitions: int) -> float:
    """Seconds from start to the first assignment of a fresh group's only member."""
    consumer = make_consumer(config, topic, group_id=f"bench-join-{uuid.uuid4().hex[:8]}")
    started = time.perf_counter()
    await consumer.start()
    try:
        await _assigned(consumer, partitions)
        return time.perf_counter() - started
    finally:
        await consumer.stop()


_VICTIM = """
import asyncio, sys
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_consumer
async def main():
    config = RuntimeConfig.from_env()
    consumer = make_consumer(config, sys.argv[1], group_id=sys.argv[2])
    await consumer.start()
    while not consumer.assignment():
        await consumer.getmany(timeout_ms=50)
    print("assigned", flush=True)
    while True:
        await consumer.getmany(timeout_ms=50)
asyncio.run(main())
"""


async def failover_time(config: RuntimeConfig, topic: str, partitions: int) -> float:
    """Seconds from SIGKILL of one of two members to the other owning every partition."""
    group = f"bench-failover-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": config.bootstrap_servers,
           "CITEFLOW_SESSION_TIMEOUT_MS": str(config.session_timeout_ms),
           "CITEFLOW_HEARTBEAT_INTERVAL_MS": str(config.heartbeat_interval_ms)}
    survivor = make_consumer(config, topic, group_id=group)
    await survivor.start()
    victim = subprocess.Popen([sys.executable, "-c", _VICTIM, topic, group], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        await _assigned(survivor, 1)
        assert victim.stdout is not None
        line = await asyncio.to_thread(victim.stdout.readline)
        if not line.startswith(b"assigned"):
            raise RuntimeError("the second member never joined")
        # Both members hold partitions once the survivor holds fewer than all of them.
        deadline = time.monotonic() + _LIMIT_S
        while len(survivor.assignment()) >= partitions:
            if time.monotonic() > deadline:
                raise TimeoutError("the partitions were never split between two members")
            await survivor.getmany(timeout_ms=_POLL_MS)
        victim.send_signal(signal.SIGKILL)
        killed = time.perf_counter()
        await _assigned(survivor, partitions)
        return time.perf_counter() - killed
    finally:
        if victim.poll() is None:
            victim.kill()
        victim.wait(timeout=10)
        await survivor.stop()


async def measure(config: RuntimeConfig, topic: str, partitions: int, runs: int) -> list[
    GroupTimes
]:
    """Join and failover medians of the reference settings and of `config`'s."""
    reference = replace(config, session_timeout_ms=REFERENCE["session_timeout_ms"],
                        heartbeat_interval_ms=REFERENCE["heartbeat_interval_ms"])
    settings = [("aiokafka defaults (reference)", reference),
                ("citeflow runtime", config)]
    found = []
    for name, setting in settings:
        joins = [await join_time(setting, topic, partitions) for _ in range(runs)]
        failovers = [await failover_time(setting, topic, partitions) for _ in range(runs)]
        found.append(GroupTimes(name, setting.session_timeout_ms,
                                setting.heartbeat_interval_ms, median(joins),
                                median(failovers)))
    return found
