"""`citeflow bench groups`: how long a consumer takes to join its group, how long a
surviving member takes to own the partitions of one killed with SIGKILL, and how long a
killed member restarted at once takes to hold partitions again, under the runtime's group
settings beside a reference (aiokafka's defaults) and beside the same settings with static
membership (a `group.instance.id` per member), in the same run.

Join: a fresh group, one member, from `start()` to its first assignment. Failover: two
members (the victim a separate process, so SIGKILL leaves no LeaveGroup), from the kill to
the survivor owning every partition. Restart: the same two members; the victim is killed
and started again at once (under its instance id when static), from the kill to the new
process holding a partition.
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
    restart_s: float
    static: bool = False


async def _assigned(consumer: AIOKafkaConsumer, want: int) -> None:
    """Poll until the consumer owns `want` partitions (bounded)."""
    deadline = time.monotonic() + _LIMIT_S
    while len(consumer.assignment()) < want:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no assignment of {want} partitions in {_LIMIT_S} s")
        await consumer.getmany(timeout_ms=_POLL_MS)


def _member(config: RuntimeConfig, topic: str, group: str) -> AIOKafkaConsumer:
    """A member as the runtime makes one (static when the config names an instance)."""
    return make_consumer(config, topic, group_id=group,
                         group_instance_id=config.group_instance_id or None)


async def join_time(config: RuntimeConfig, topic: str, partitions: int) -> float:
    """Seconds from start to the first assignment of a fresh group's only member."""
    consumer = _member(config, topic, f"bench-join-{uuid.uuid4().hex[:8]}")
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
    consumer = make_consumer(config, sys.argv[1], group_id=sys.argv[2],
                             group_instance_id=config.group_instance_id or None)
    await consumer.start()
    while not consumer.assignment():
        await consumer.getmany(timeout_ms=50)
    print("assigned", flush=True)
    while True:
        await consumer.getmany(timeout_ms=50)
asyncio.run(main())
"""


async def failover_time(config: RuntimeConfig, topic: str, partitions: int,
                        restart: bool = False) -> float:
    """Seconds from SIGKILL of one of two members to the other owning every partition; with
    `restart`, to a new process of the killed member (started at once) holding one."""
    group = f"bench-failover-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": config.bootstrap_servers,
           "CITEFLOW_SESSION_TIMEOUT_MS": str(config.session_timeout_ms),
           "CITEFLOW_HEARTBEAT_INTERVAL_MS": str(config.heartbeat_interval_ms)}
    if config.group_instance_id:
        env["CITEFLOW_GROUP_INSTANCE_ID"] = f"{config.group_instance_id}-victim"
        config = replace(config, group_instance_id=f"{config.group_instance_id}-survivor")
    survivor = _member(config, topic, group)
    await survivor.start()
    victims = [_victim(topic, group, env)]
    try:
        await _assigned(survivor, 1)
        await _reported_assigned(victims[0])
        # Both members hold partitions once the survivor holds fewer than all of them.
        deadline = time.monotonic() + _LIMIT_S
        while len(survivor.assignment()) >= partitions:
            if time.monotonic() > deadline:
                raise TimeoutError("the partitions were never split between two members")
            await survivor.getmany(timeout_ms=_POLL_MS)
        victims[0].send_signal(signal.SIGKILL)
        killed = time.perf_counter()
        if restart:
            victims.append(_victim(topic, group, env))
            # The survivor keeps polling (heartbeats, rebalances) while the new one joins.
            joined = asyncio.create_task(_reported_assigned(victims[-1]))
            while not joined.done():
                await survivor.getmany(timeout_ms=_POLL_MS)
            await joined
        else:
            await _assigned(survivor, partitions)
        return time.perf_counter() - killed
    finally:
        for victim in victims:
            if victim.poll() is None:
                victim.kill()
            victim.wait(timeout=10)
        await survivor.stop()


def _victim(topic: str, group: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", _VICTIM, topic, group], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


async def _reported_assigned(victim: subprocess.Popen[bytes]) -> None:
    assert victim.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(victim.stdout.readline), _LIMIT_S)
    if not line.startswith(b"assigned"):
        raise RuntimeError("the second member never joined")


async def measure(config: RuntimeConfig, topic: str, partitions: int, runs: int) -> list[
    GroupTimes
]:
    """Join, failover and restart medians of the reference settings, of `config`'s, and of
    `config`'s with static membership."""
    reference = replace(config, session_timeout_ms=REFERENCE["session_timeout_ms"],
                        heartbeat_interval_ms=REFERENCE["heartbeat_interval_ms"],
                        group_instance_id="")
    static = replace(config, group_instance_id=config.group_instance_id or "bench")
    settings = [("aiokafka defaults (reference)", reference),
                ("citeflow runtime", replace(config, group_instance_id="")),
                ("citeflow runtime, static membership", static)]
    found = []
    for name, setting in settings:
        joins, failovers, restarts = [], [], []
        for _ in range(runs):
            unique = _unique(setting)
            joins.append(await join_time(unique, topic, partitions))
            failovers.append(await failover_time(_unique(setting), topic, partitions))
            restarts.append(await failover_time(_unique(setting), topic, partitions,
                                                restart=True))
        found.append(GroupTimes(name, setting.session_timeout_ms,
                                setting.heartbeat_interval_ms, median(joins),
                                median(failovers), median(restarts),
                                bool(setting.group_instance_id)))
    return found


def _unique(config: RuntimeConfig) -> RuntimeConfig:
    """A static config's instance id made unique to one measurement (groups are fresh too)."""
    if not config.group_instance_id:
        return config
    return replace(config, group_instance_id=f"{config.group_instance_id}-{uuid.uuid4().hex[:6]}")
