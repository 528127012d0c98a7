"""The reader processes (page renders, chapters) of a real `citeflow serve` run at the idle
scheduling class, and end with their gateway, even when it is killed with SIGKILL: nothing
of `citeflow serve` outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from services.broker import free_port
from tests.integration.conftest import REPO_ROOT
from tests.services.gateway.hostile.conftest import _wait_healthy


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] not in "ZX"
    except (OSError, IndexError):
        return False


def _reader_processes(children: list[int]) -> list[int]:
    return [pid for pid in children if b"resource_tracker" not in
            Path(f"/proc/{pid}/cmdline").read_bytes()]


def _policies(pids: list[int]) -> set[int]:
    """The scheduling classes of `pids` once they leave the default one (their initializer
    runs after the imports of a spawned process), or the default after a minute."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        policies = {os.sched_getscheduler(pid) for pid in pids}
        if policies != {os.SCHED_OTHER}:
            return policies
        time.sleep(0.1)
    return policies


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_reader_processes_yield_the_cpu_and_end_with_a_killed_gateway(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve", "--port", str(port)],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT),
             "KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:1",  # reads need no broker
             "CITEFLOW_DATA_DIR": str(tmp_path / "data"),
             "CITEFLOW_DOCUMENT_STORE": str(tmp_path / "documents"),
             "CITEFLOW_READER_CACHE": str(tmp_path / "cache")},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO_ROOT,
        start_new_session=True)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", process)
        deadline = time.monotonic() + 60
        while len(_children(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)  # the resource tracker and the reader process it starts with
        children = _children(process.pid)
        assert len(children) >= 2, children
        # Any other process that wakes takes the CPU from a reader at once.
        readers = _reader_processes(children)
        assert readers and _policies(readers) == {os.SCHED_IDLE}
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        deadline = time.monotonic() + 30
        while any(_alive(child) for child in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(child) for child in children)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
