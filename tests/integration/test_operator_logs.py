"""Logs an operator can search, on the real ingest stage and broker: a rejection's code,
reason and event id; a batch's latency at info level and a line per record at debug; library warnings as JSON lines; bad
input to the commands (a log level, invalid UTF-8) as one line, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from services.cli import main
from tests.integration.conftest import REPO_ROOT, Harness

pytestmark = pytest.mark.integration


def _run(harness: Harness, *args: str, input: bytes | None = None) -> Any:
    return CliRunner().invoke(main, [*args, "--bootstrap", harness.bootstrap, "--prefix",
                                     harness.prefix], input=input)


def test_rejections_say_why_batches_their_latency_and_debug_each_record(
        harness: Harness) -> None:
    harness.create_topics(["ingest"])
    harness.start("ingest", CITEFLOW_LOG_LEVEL="debug")
    envelope = {"specversion": "1.0", "id": "env-7", "source": "test",
                "type": "answer.submitted.v1", "subject": "bad-1",
                "data": {"answer_id": "bad-1", "text": 5, "sources": []}}
    lines = orjson.dumps(envelope) + b"\n" + b'{"answer_id": "utf-\xff"}\n'
    sent = _run(harness, "submit", "-", "--raw", input=lines)
    assert sent.exit_code == 0, sent.output

    def rejected() -> list[dict[str, Any]]:
        return [e for e in harness.log_events("ingest") if e.get("event") == "rejected"]

    def batches() -> list[dict[str, Any]]:
        return [e for e in harness.log_events("ingest") if e.get("event") == "batch processed"]

    def records() -> list[dict[str, Any]]:
        return [e for e in harness.log_events("ingest") if e.get("event") == "record processed"]

    harness.wait_for(lambda: len(rejected()) == 2 and bool(batches()) and len(records()) == 2,
                     "rejected, batch and record lines")
    by_offset = sorted(rejected(), key=lambda e: e["offset"])
    first, second = by_offset if by_offset[0].get("event_id") == "env-7" else by_offset[::-1]
    assert first["event_id"] == "env-7" and first["code"] and first["reason"]
    assert second["code"] and second["reason"]
    # Every batch line is at info (an operator sees latency without debug), with its wall
    # time and its slowest record; debug adds one line per record, named by its position.
    for batch in batches():
        assert batch["level"] == "info" and batch["records"]
        assert isinstance(batch["ms"], float) and 0 <= batch["slowest_ms"] <= batch["ms"]
    assert {(e["level"], e["offset"]) for e in records()} == {
        ("debug", e["offset"]) for e in rejected()}
    assert all(e["outputs"] == ["answers.rejected"] for e in records())
    # Debug adds citeflow's own lines, not the libraries' (aiokafka's hold record values).
    assert not [e for e in harness.log_events("ingest") if e.get("level") == "debug"
                and e.get("logger", "").startswith("aiokafka")]


def test_submit_of_invalid_utf8_is_one_line(harness: Harness) -> None:
    harness.create_topics(["ingest"])
    done = _run(harness, "submit", "-", input=b'{"answer_id": "a\xff"}\n')
    assert done.exit_code == 1
    assert done.stderr.strip().splitlines() == [
        "Error: <stdin> is not UTF-8 (byte 16: b'\\xff'); send it with --raw to publish the "
        "bytes as they are"]


def _citeflow(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "services.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **env})


def test_an_invalid_log_level_is_one_line(harness: Harness) -> None:
    for argv, env in ((["run", "ingest", "--log-level", "loud"], {}),
                      (["run", "ingest"], {"CITEFLOW_LOG_LEVEL": "loud"})):
        done = _citeflow(*argv, "--bootstrap", harness.bootstrap, **env)
        assert done.returncode == 1
        assert done.stderr.strip().splitlines() == [
            "Error: CITEFLOW_LOG_LEVEL='loud' is not a log level (debug, info, warning, error, "
            "critical)"]


def test_library_logs_and_warnings_are_json_lines() -> None:
    code = ("import logging, warnings\n"
            "from services.runtime.logging import configure\n"
            "configure('info')\n"
            "logging.getLogger('aiokafka.consumer').warning('heartbeat failed for %s', 'g')\n"
            "warnings.warn('a resource was leaked', ResourceWarning)\n")
    done = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True,
                          text=True, timeout=60, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    lines = [orjson.loads(line) for line in done.stderr.splitlines()]
    assert [(e["logger"], e["level"]) for e in lines] == [
        ("aiokafka.consumer", "warning"), ("py.warnings", "warning")]
    assert lines[0]["event"] == "heartbeat failed for g"
    assert "a resource was leaked" in lines[1]["event"]
