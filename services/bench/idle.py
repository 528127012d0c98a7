"""`citeflow bench idle`: what the running pipeline costs when little happens.

For each fetch long-poll bound asked for, on a fresh embedded broker with the five stage
processes: the CPU the stages and the broker burn over a window with no traffic, then the
latency of single answers sent at a low steady rate (one at a time through all five hops).
The bound is the trade-off these two figures show: a short one makes idle consumers ask the
broker more often, and a long one would only delay an answer if the broker held a fetch
after data arrived.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from services.bench.e2e import (
    Collector,
    Processes,
    answers,
    cpu_seconds,
    paced_latencies,
    percentile,
    send_all,
)
from services.broker import create_topics, free_port, pipeline_topics, start_broker
from services.runtime.config import RuntimeConfig
from services.runtime.registry import load_stage, pipeline_stage_names
from services.runtime.supervisor import stage_command

SETTLE_S = 8.0  # stage start-up (imports, group join) before the idle window


@dataclass(frozen=True)
class IdleResult:
    """One fetch-wait setting."""

    fetch_max_wait_ms: int
    idle_s: float
    stages_cores: float  # CPU seconds per second of the five idle stage processes
    broker_cores: float
    latency_p50_ms: float
    latency_p90_ms: float


def measure_setting(fetch_max_wait_ms: int, *, idle_s: float, rate: float, count: int,
                    partitions: int, log_dir: Path, progress: Callable[[str], None],
                    settle_s: float = SETTLE_S) -> IdleResult:
    """Start a broker and the five stages with this fetch wait, measure, stop them."""
    broker = start_broker(free_port())
    config = RuntimeConfig.from_env(bootstrap_servers=broker.bootstrap, partitions=partitions,
                                    topic_prefix=f"idle-{uuid.uuid4().hex[:8]}.",
                                    fetch_max_wait_ms=fetch_max_wait_ms)
    specs = list(pipeline_stage_names())
    stages = [load_stage(spec) for spec in specs]
    processes = Processes(config, log_dir)
    try:
        inputs = [t for stage in stages for t in stage.input_topics]
        asyncio.run(create_topics(broker.bootstrap,
                                  pipeline_topics(inputs, config.topic_prefix), partitions))
        for spec, stage in zip(specs, stages, strict=True):
            processes.start(stage_command(spec), f"idle-{fetch_max_wait_ms}-{stage.name}")
        progress(f"fetch wait {fetch_max_wait_ms} ms: stages starting")
        time.sleep(settle_s)
        stages_before, broker_before = processes.cpu_seconds(), cpu_seconds([broker.pid])
        time.sleep(idle_s)
        stages_cpu = processes.cpu_seconds() - stages_before
        broker_cpu = cpu_seconds([broker.pid]) - broker_before
        progress(f"fetch wait {fetch_max_wait_ms} ms: {count} single answers at {rate}/s")
        first = config.physical(stages[0].input_topics[0])
        last = config.physical(stages[-1].output_topics[0])
        latencies = asyncio.run(_latencies(config, first, last, rate, count))
    finally:
        processes.stop()
        broker.stop()
    return IdleResult(fetch_max_wait_ms, idle_s, stages_cpu / idle_s, broker_cpu / idle_s,
                      statistics.median(latencies), percentile(latencies, 0.9))


async def _latencies(config: RuntimeConfig, first: str, last: str, rate: float,
                     count: int) -> list[float]:
    async with Collector(config, last) as collector:
        warm = answers("idle-warm", 5)
        await send_all(config, first, warm, None)
        await collector.wait_for({r.key for r in warm if r.key})
        return await paced_latencies(config, first, collector, answers("idle-lat", count), rate)


def run_idle_benchmark(waits: list[int], *, idle_s: float, rate: float, count: int,
                       partitions: int, progress: Callable[[str], None],
                       settle_s: float = SETTLE_S) -> list[IdleResult]:
    """Measure every fetch-wait setting in turn."""
    log_dir = Path(os.environ.get("CITEFLOW_BENCH_LOGS",
                                  f"/tmp/citeflow-bench-idle-{uuid.uuid4().hex[:8]}"))
    log_dir.mkdir(parents=True, exist_ok=True)
    return [measure_setting(wait, idle_s=idle_s, rate=rate, count=count,
                            partitions=partitions, log_dir=log_dir, progress=progress,
                            settle_s=settle_s)
            for wait in waits]
