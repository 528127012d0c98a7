"""The reader processes (page renders, chapters) end with their gateway, even when it is
killed with SIGKILL: nothing of `citeflow serve` outlives it."""

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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_reader_processes_end_with_a_killed_gateway(tmp_path: Path) -> None:
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
