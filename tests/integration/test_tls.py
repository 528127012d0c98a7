"""The pipeline over a real TLS connection: Tansu behind Debian's stunnel4 (Tansu 0.6.0
cannot serve TLS itself, see services/bench/tls.py), certificates made here, client
certificates required (mutual TLS). A wrong CA, a hostname mismatch and a missing client
certificate each end a command or a stage at start-up with one line and exit status 1."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from services.bench.tls import TlsBroker, start_tls_broker
from services.broker import create_topics, pipeline_topics
from services.cli import main
from services.runtime.config import RuntimeConfig
from tests.integration.conftest import REPO_ROOT, Harness, small_answers

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def tls_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsBroker]:
    broker = start_tls_broker(tmp_path_factory.mktemp("tls"))
    try:
        yield broker
    finally:
        broker.stop()


@dataclass
class TlsHarness(Harness):
    """The integration harness with every client (this test's and its stage processes')
    connecting over mutual TLS."""

    env: dict[str, str] | None = None

    @property
    def config(self) -> RuntimeConfig:
        assert self.env is not None
        return RuntimeConfig.from_env(self.env, topic_prefix=self.prefix)

    def create_topics(self, stages: list[str], partitions: int = 4) -> None:
        from services.runtime.registry import load_stage

        inputs = [t for spec in stages for t in load_stage(spec).input_topics]
        asyncio.run(create_topics(self.config, pipeline_topics(inputs, self.prefix), partitions))

    def start(self, spec: str, name: str | None = None, **env: str) -> subprocess.Popen[bytes]:
        assert self.env is not None
        return super().start(spec, name, **self.env, **env)


@pytest.fixture
def tls_harness(tls_broker: TlsBroker, tmp_path: Path) -> Iterator[TlsHarness]:
    h = TlsHarness(tls_broker.bootstrap, f"t{uuid.uuid4().hex[:10]}.", tmp_path,
                   env=tls_broker.client_env())
    try:
        yield h
    finally:
        h.stop_all()


def test_200_answers_through_the_five_stages_over_mutual_tls(
        tls_harness: TlsHarness, pipeline_specs: list[str]) -> None:
    result = CliRunner().invoke(main, ["topics", "create", "--prefix", tls_harness.prefix],
                                env=tls_harness.env)
    assert result.exit_code == 0, result.output
    for spec in pipeline_specs:
        tls_harness.start(spec)
    answers = small_answers(200, "tls")
    tls_harness.submit(answers)
    wanted = {a["answer_id"] for a in answers}
    records = tls_harness.wait_for_keys("answers.formatted", wanted)
    assert {r.key.decode() for r in records} == wanted
    # The stages really spoke TLS: the terminator is the only way to the broker they know.
    assert all(p.poll() is None for p in tls_harness.processes)


def _check(env: dict[str, str]) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["topics", "check"], env=env)
    return result.exit_code, [line for line in result.output.splitlines() if line.strip()]


def test_an_untrusted_certificate_is_one_line(tls_broker: TlsBroker) -> None:
    code, lines = _check({**tls_broker.client_env(),
                          "KAFKA_SSL_CA_LOCATION": str(tls_broker.pki.other_ca)})
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"Error: TLS with {tls_broker.bootstrap}: the broker's "
                               f"certificate is not trusted by {tls_broker.pki.other_ca}")


def test_a_hostname_mismatch_is_one_line(tls_broker: TlsBroker) -> None:
    by_address = f"127.0.0.1:{tls_broker.port}"
    code, lines = _check({**tls_broker.client_env(), "KAFKA_BOOTSTRAP_SERVERS": by_address})
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"Error: TLS with {by_address}: the broker's certificate "
                               "does not name 127.0.0.1")
    # Turning the hostname check off (the chain is still checked) connects.
    code, lines = _check({**tls_broker.client_env(), "KAFKA_BOOTSTRAP_SERVERS": by_address,
                          "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM": "none"})
    assert code in (0, 1) and not any("TLS" in line for line in lines), lines


def test_a_missing_client_certificate_is_one_line(tls_broker: TlsBroker) -> None:
    env = {k: v for k, v in tls_broker.client_env().items()
           if k not in ("KAFKA_SSL_CERTIFICATE_LOCATION", "KAFKA_SSL_KEY_LOCATION")}
    code, lines = _check(env)
    # The refusal is a TLS alert after the handshake; when the connection is reset before
    # it is read, one "waiting for Kafka" line comes first and the next attempt reads it.
    assert code == 1 and len(lines) <= 2 and lines[0].startswith(("Error", "waiting")), lines
    assert lines[-1].startswith(f"Error: TLS with {tls_broker.bootstrap} failed: ")
    assert "the broker wants a client certificate" in lines[-1]


def test_a_stage_with_an_untrusted_certificate_exits_at_start(
        tls_broker: TlsBroker, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **tls_broker.client_env(),
           "KAFKA_SSL_CA_LOCATION": str(tls_broker.pki.other_ca)}
    done = subprocess.run([sys.executable, "-m", "services.runtime", "scoring"], env=env,
                          capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "certificate is not trusted" in lines[0], done.stderr
