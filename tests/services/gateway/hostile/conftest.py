"""The hostile-client suite's gateway: a real `citeflow serve` process on loopback (the
embedded broker, an SQLite store, the guarded HTTP protocol) with the real ingest stage and
store sink behind it, keys of two tenants, short head deadlines so the suite stays quick.
Every attack here is bounded in count and time."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from services.broker import create_topics, free_port, pipeline_topics
from services.store.sql import SqlStore
from tests.integration.conftest import FAST_ENV, REPO_ROOT

HEAD_TIMEOUT_S = 1.0
UNAUTHENTICATED_RATE = 0.05


@dataclass
class Hostile:
    url: str
    port: int
    a: str  # submit, read, stream: tenant "ta"
    b: str  # submit, read, stream: tenant "tb"
    ops: str  # ops: tenant "ta"
    limited: str  # submit, read: tenant "tc", one request token, refilled once in 1000 s
    process: subprocess.Popen[bytes]
    documents: Path

    def auth(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"}

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        return sock

    def document_status(self, key: str, doc_id: str, until: set[str]) -> dict[str, object]:
        """The document's status once it is one of `until` (ingest and the sink at work)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status = httpx.get(f"{self.url}/v1/documents/{doc_id}", headers=self.auth(key),
                               timeout=10).json()
            if status["status"] in until:
                return dict(status)
            time.sleep(0.2)
        raise AssertionError(f"{doc_id} never reached {until}: {status}")


async def _keys(url: str) -> tuple[str, str, str, str]:
    store = SqlStore(url)
    try:
        await store.migrate()
        rw = frozenset({"submit", "read", "stream"})
        _, a = await store.create_key("ta", rw, rate_per_s=1e6)
        _, b = await store.create_key("tb", rw, rate_per_s=1e6)
        _, ops = await store.create_key("ta", frozenset({"ops"}), rate_per_s=1e6)
        _, limited = await store.create_key("tc", frozenset({"submit", "read"}),
                                            rate_per_s=0.001)
        return a, b, ops, limited
    finally:
        await store.close()


def _wait_healthy(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"gateway exited with {process.returncode}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("the gateway did not come up")


@contextlib.contextmanager
def serving(bootstrap: str, tmp: Path, **env_extra: str) -> Iterator[Hostile]:
    """A gateway (with ingest and the store sink) until the block ends; `env_extra` is added
    to its environment."""
    store_url = f"sqlite+aiosqlite:///{tmp / 'store.db'}"
    a, b, ops, limited = asyncio.run(_keys(store_url))
    prefix = f"hostile-{uuid.uuid4().hex[:8]}."
    from services.runtime.registry import load_stage

    inputs = [t for spec in ("ingest", "store") for t in load_stage(spec).input_topics]
    asyncio.run(create_topics(bootstrap, pipeline_topics(inputs, prefix), 1))
    port = free_port()
    env = {**os.environ, **FAST_ENV, "PYTHONPATH": str(REPO_ROOT),
           "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "CITEFLOW_TOPIC_PREFIX": prefix,
           "CITEFLOW_STORE_URL": store_url, "CITEFLOW_DOCUMENT_STORE": str(tmp / "documents"),
           "CITEFLOW_READER_CACHE": str(tmp / "cache"), "CITEFLOW_DATA_DIR": str(tmp / "data"),
           "CITEFLOW_HEAD_TIMEOUT_SECONDS": str(HEAD_TIMEOUT_S),
           "CITEFLOW_BODY_IDLE_TIMEOUT_SECONDS": str(HEAD_TIMEOUT_S),
           # 20 requests without a valid key, then one every 20 s: on a busy machine an
           # unknown key's store lookup can take longer than the default refill (0.2 s).
           "CITEFLOW_UNAUTHENTICATED_RATE": str(UNAUTHENTICATED_RATE), **env_extra}
    argvs = {"gateway": ["services.cli", "serve", "--port", str(port)],
             "ingest": ["services.runtime", "ingest"], "store": ["services.runtime", "store"]}
    processes = []
    for name, argv in argvs.items():
        with open(tmp / f"{name}.log", "ab") as log:
            processes.append(subprocess.Popen(
                [sys.executable, "-m", *argv], env=env, stdout=subprocess.DEVNULL,
                stderr=log, cwd=REPO_ROOT, start_new_session=True))
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, processes[0])
        # Known to the gateway: never refused for their address (`limited` spends its token).
        for key in (a, b, ops, limited):
            httpx.get(url + "/v1/answers", headers={"Authorization": f"Bearer {key}"},
                      timeout=10)
        yield Hostile(url, port, a, b, ops, limited, processes[0], tmp / "documents")
    finally:
        for process in processes:  # each its own process group, ended by its pid
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


@pytest.fixture(scope="module")
def hostile(bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    with serving(bootstrap, tmp_path_factory.mktemp("hostile")) as served:
        yield served
