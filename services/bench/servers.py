"""The processes a gateway benchmark runs: one run's broker, prefix, store and key (`Bench`),
and a uvicorn server on a free port for the length of a block (`serving`). Shared by the
submit/read benchmarks (services.bench.gateway) and the stream benchmark
(services.bench.stream)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from services.broker import free_port

STARTUP_S = 60.0
REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Bench:
    """One run's broker, topic prefix, store and key."""

    bootstrap: str
    prefix: str
    workdir: Path
    store_url: str
    key: str = ""
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(REPO_ROOT),
                "KAFKA_BOOTSTRAP_SERVERS": self.bootstrap,
                "CITEFLOW_TOPIC_PREFIX": self.prefix, "CITEFLOW_STORE_URL": self.store_url,
                "CITEFLOW_FETCH_MAX_WAIT_MS": "50"}


@contextmanager
def serving(bench: Bench, factory: str, name: str, workers: int = 1,
            ready_path: str = "/healthz") -> Iterator[int]:
    """A uvicorn process serving `factory` on a free port until the block ends."""
    port = free_port()
    log = open(bench.workdir / f"{name}.log", "ab")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", factory, "--factory", "--host", "127.0.0.1",
         "--port", str(port), "--workers", str(workers), "--no-access-log",
         "--log-level", "warning", "--no-server-header"],
        env=bench.env(), stdout=subprocess.DEVNULL, stderr=log, cwd=REPO_ROOT,
        start_new_session=True,
    )
    try:
        wait_ready(port, ready_path, process)
        yield port
    finally:
        stop_server(process)
        log.close()


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group (uvicorn and its workers), SIGKILL after 20 s."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_ready(port: int, path: str, process: subprocess.Popen[bytes]) -> None:
    import http.client

    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server on port {port} not ready within {STARTUP_S:.0f} s")
