"""Integration fixtures: isolated topic prefixes and stage processes on the session's broker
(`bootstrap`, tests/conftest.py). Every test gets its own topic prefix (and so its own
groups).
"""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

from services.bench.workload import bench_answer
from services.broker import create_topics, pipeline_topics
from services.runtime.config import RuntimeConfig
from services.runtime.dead_letters import Record
from services.runtime.operations import answer_records
from services.runtime.topic_io import Range, publish, read_range
from services.stages import STAGE_NAMES

REPO_ROOT = Path(__file__).resolve().parents[2]
TOY = "tests.integration.toy_stages"
# Fast group membership and retries, so rebalances and dead letters take moments. The fetch
# long-poll stays the product's (50 ms): at 10 ms every idle stage process asked the broker
# 100 times a second, CPU the tests' processes then lacked on a small machine.
FAST_ENV = {
    "CITEFLOW_SESSION_TIMEOUT_MS": "6000",
    "CITEFLOW_HEARTBEAT_INTERVAL_MS": "500",
    "CITEFLOW_RETRY_BASE_MS": "20",
    "CITEFLOW_RETRY_MAX_MS": "200",
    "CITEFLOW_RETRY_MAX_ATTEMPTS": "3",
    "CITEFLOW_SHUTDOWN_TIMEOUT_S": "10",
    "CITEFLOW_PARTITIONS": "4",
    "CITEFLOW_BATCH_SIZE": "50",
}
# A liveness bound for waiting on results (a hung pipeline fails, a slow one does not).
WAIT_S = 120.0


@dataclass
class Harness:
    """One test's view of the broker: its prefix, its stage processes, its topics."""

    bootstrap: str
    prefix: str
    logs: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def config(self) -> RuntimeConfig:
        return RuntimeConfig.from_env(
            {}, bootstrap_servers=self.bootstrap, topic_prefix=self.prefix
        )

    def create_topics(self, stages: list[str], partitions: int = 4) -> None:
        """The pipeline's topics plus the dead-letter topics of `stages`' inputs."""
        from services.runtime.registry import load_stage

        inputs = [t for spec in stages for t in load_stage(spec).input_topics]
        asyncio.run(create_topics(self.bootstrap, pipeline_topics(inputs, self.prefix),
                                  partitions))

    def start(self, spec: str, name: str | None = None, **env: str) -> subprocess.Popen[bytes]:
        """Start `citeflow run STAGE` as a process; its log is `<logs>/<name>.log`."""
        log_name = name or spec.rsplit(":", 1)[-1]
        log = open(self.logs / f"{log_name}.log", "ab")  # noqa: SIM115
        process = subprocess.Popen(
            [sys.executable, "-m", "services.runtime", spec],
            env={
                **os.environ,
                **FAST_ENV,
                "PYTHONPATH": str(REPO_ROOT),
                "KAFKA_BOOTSTRAP_SERVERS": self.bootstrap,
                "CITEFLOW_TOPIC_PREFIX": self.prefix,
                **env,
            },
            stdout=subprocess.DEVNULL,
            stderr=log,
            cwd=REPO_ROOT,
        )
        log.close()
        self.processes.append(process)
        return process

    def log_events(self, name: str) -> list[dict[str, Any]]:
        """The JSON log lines a process wrote so far."""
        path = self.logs / f"{name}.log"
        if not path.exists():
            return []
        events = []
        for line in path.read_bytes().splitlines():
            try:
                events.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
        return events

    def publish(self, records: list[Record]) -> None:
        asyncio.run(publish(self.config, records))

    def submit(self, answers: list[dict[str, Any]]) -> None:
        """Publish answers as `citeflow submit` does."""
        records, bad = answer_records([orjson.dumps(a).decode() for a in answers])
        assert not bad
        self.publish(records)

    def read(self, topic: str) -> list[Any]:
        """Every record of a (logical) topic so far."""

        async def go() -> list[Any]:
            return [r async for r in read_range(self.config, self.prefix + topic, Range())]

        return asyncio.run(go())

    def wait_for_keys(self, topic: str, keys: set[str], timeout: float = WAIT_S) -> list[Any]:
        """Read `topic` until records with every key in `keys` are there; returns them all."""
        deadline = time.monotonic() + timeout
        while True:
            records = self.read(topic)
            seen = {r.key.decode() for r in records if r.key}
            if keys <= seen:
                return records
            for process in self.processes:
                if process.poll() not in (None, 0, -signal.SIGKILL, -signal.SIGTERM):
                    raise AssertionError(f"a stage process exited with {process.returncode}")
            if time.monotonic() > deadline:
                missing = sorted(keys - seen)
                raise AssertionError(f"{len(missing)} keys never arrived on {topic}: "
                                     f"{missing[:10]}")
            time.sleep(0.3)

    def wait_for(self, predicate: Callable[[], bool], what: str,
                 timeout: float = WAIT_S) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.2)

    def stop_all(self) -> None:
        """Kill every process this test started, by pid."""
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)


@pytest.fixture
def harness(bootstrap: str, tmp_path: Path) -> Iterator[Harness]:
    """A fresh prefix on the shared broker; every process it starts is killed afterwards."""
    h = Harness(bootstrap, f"t{uuid.uuid4().hex[:10]}.", tmp_path)
    try:
        yield h
    finally:
        h.stop_all()


@pytest.fixture(scope="session")
def pipeline_specs() -> list[str]:
    """The five real stages, by name."""
    return list(STAGE_NAMES)


def small_answers(count: int, prefix: str = "ans") -> list[dict[str, Any]]:
    """Valid, small answers with distinct ids."""
    return [
        bench_answer(f"{prefix}-{i}", words=80, citations=4, sources=2, chunks_per_source=1,
                     chunk_chars=300, verbatim_units=2, seed=i)
        for i in range(count)
    ]


def decode_b64(text: str) -> bytes:
    return base64.b64decode(text)
