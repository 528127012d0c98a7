"""The store sink (`citeflow run store`) on the embedded broker: real pipeline output into
SQLite; kill -9 mid-stream and restart; PostgreSQL stopped mid-stream and started again."""

from __future__ import annotations

import asyncio
import signal
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from services.runtime.dead_letters import Record, read_dead_letter
from services.runtime.stage import Message
from services.store.api import AnswerQuery, AnswerRecord
from services.store.sql import SqlStore
from tests.integration.conftest import WAIT_S, Harness, small_answers
from tests.services.store import records as r

pytestmark = pytest.mark.integration
T0 = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


def _rows(url: str) -> dict[str, AnswerRecord]:
    """Every answer in the store, by id."""

    async def go() -> dict[str, AnswerRecord]:
        store = SqlStore(url)
        try:
            await store.migrate()
            found: dict[str, AnswerRecord] = {}
            cursor = None
            while True:
                page = await store.query(AnswerQuery(tenant=None, limit=500, cursor=cursor))
                found.update((i.answer_id, i) for i in page.items)
                cursor = page.next_cursor
                if cursor is None:
                    return found
        finally:
            await store.close()

    return asyncio.run(go())


def _wait_rows(harness: Harness, url: str, want: dict[str, str],
               timeout: float = WAIT_S) -> dict[str, AnswerRecord]:
    """Wait until every answer in `want` has its wanted status; returns all rows."""
    deadline = time.monotonic() + timeout
    while True:
        rows = _rows(url)
        if all(rows.get(a) is not None and rows[a].status == s for a, s in want.items()):
            return rows
        for process in harness.processes:
            if process.poll() not in (None, -signal.SIGKILL, -signal.SIGTERM):
                raise AssertionError(f"a process exited with {process.returncode}")
        if time.monotonic() > deadline:
            missing = [a for a, s in want.items() if rows.get(a) is None or rows[a].status != s]
            raise AssertionError(f"{len(missing)} answers not in the store: {missing[:10]}")
        time.sleep(0.3)


def _record(message: Message) -> Record:
    return Record(message.topic, message.value, message.key, list(message.headers))


def _flow_records(count: int, prefix: str, offset_s: int = 0) -> tuple[list[Record], dict]:
    """Submitted + formatted records of `count` answers (real encodings), and the expected
    formatted event id of each."""
    out: list[Record] = []
    expected = {}
    for i in range(count):
        data = r.answer(f"{prefix}-{i}", seed=i)
        at = T0 + timedelta(seconds=offset_s + i)
        out.append(_record(r.submitted(data, r_iso(at))))
        formatted = r.formatted(data, r_iso(at + timedelta(milliseconds=250 + i)))
        out.append(_record(formatted))
        expected[data["answer_id"]] = f"fmt-{data['answer_id']}"
    return out, expected


def r_iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def test_sink_records_real_pipeline_output(harness: Harness, pipeline_specs: list[str],
                                           tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    harness.create_topics([*pipeline_specs, "store"])
    for spec in pipeline_specs:
        harness.start(spec)
    harness.start("store", CITEFLOW_STORE_URL=url)
    answers = small_answers(30, prefix="real")
    for a in answers:
        a["metadata"] = {"tenant": "acme", "model": "m1"}
    bad = {"answer_id": "real-bad", "text": 5, "sources": []}
    harness.submit(answers)
    harness.publish([Record("answers.submitted",
                            orjson.dumps({"specversion": "1.0", "id": "x", "source": "t",
                                          "type": "citeflow.answer.submitted.v1",
                                          "subject": "real-bad", "data": bad}),
                            b"real-bad", [])])
    # Two unkeyed inputs that give no answer id: a row each, under where each was read.
    harness.publish([Record("answers.submitted", b"{not json", None, []),
                     Record("answers.submitted", b"[]", None, [])])
    want = {a["answer_id"]: "formatted" for a in answers} | {"real-bad": "rejected"}
    rows = _wait_rows(harness, url, want)
    deadline = time.monotonic() + WAIT_S
    # The sink reads the two topics in no set order: an answer's latency needs both its
    # submission and its result, so a formatted row may wait a moment for it.
    while len(unidentified := [a for a in rows if a.startswith("@")]) < 2 or any(
            rows[a["answer_id"]].latency_ms is None for a in answers):
        assert time.monotonic() < deadline, (
            f"rows of unidentified inputs: {unidentified}; without latency: "
            f"{[a['answer_id'] for a in answers if rows[a['answer_id']].latency_ms is None]}")
        time.sleep(0.3)
        rows = _rows(url)
    assert all(a.startswith("@answers.submitted:") and rows[a].status == "rejected"
               and rows[a].tenant == "default" for a in unidentified), unidentified
    formatted = {r.key.decode(): r for r in harness.read("answers.formatted")}
    for a in answers:
        row = rows[a["answer_id"]]
        assert (row.tenant, row.model) == ("acme", "m1")
        assert row.result is not None
        assert orjson.loads(row.result) == orjson.loads(formatted[a["answer_id"]].value)["data"]
        assert row.summary is not None and row.summary.citations > 0
        assert row.latency_ms is not None and row.latency_ms >= 0
    (rejection,) = [r for r in harness.read("answers.rejected") if r.key == b"real-bad"]
    assert rows["real-bad"].reason == orjson.loads(rejection.value)["data"]["code"]


def test_sink_kill9_mid_stream_and_restart_loses_and_duplicates_nothing(
    harness: Harness, tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    harness.create_topics(["store"])
    sink = harness.start("store", CITEFLOW_STORE_URL=url, CITEFLOW_BATCH_SIZE="10")
    expected: dict[str, str] = {}
    chunks = [_flow_records(40, f"k{n}", offset_s=100 * n) for n in range(5)]
    for n, (records, ids) in enumerate(chunks):
        harness.publish(records)
        expected.update(ids)
        if n == 1:
            # Kill -9 once some of what was published is in the store.
            _wait_rows(harness, url, {next(iter(ids)): "formatted"})
            sink.send_signal(signal.SIGKILL)
            sink.wait(timeout=10)
            before = {a: row for a, row in _rows(url).items() if row.status == "formatted"}
            sink = harness.start("store", name="store-2", CITEFLOW_STORE_URL=url,
                                 CITEFLOW_BATCH_SIZE="10")
    rows = _wait_rows(harness, url, dict.fromkeys(expected, "formatted"))
    assert set(rows) == set(expected)  # every answer once: no loss, no stray rows
    for answer_id, event_id in expected.items():
        assert rows[answer_id].event_id == event_id
        assert rows[answer_id].result is not None
    # What was already there when the sink died was re-delivered, and changed nothing. (A
    # formatted record may have been written before its submission, read from another
    # topic: that row gains its submission time and the latency it gives once the
    # submission is read again, which may be after every answer shows formatted.)
    for answer_id, row in before.items():
        if row.submitted_at is None:
            assert replace(rows[answer_id], submitted_at=None, latency_ms=None) == row
        else:
            assert rows[answer_id] == row


def test_poison_on_a_sink_input_is_dead_lettered_and_the_sink_goes_on(
    harness: Harness, tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    harness.create_topics(["store"])
    harness.start("store", CITEFLOW_STORE_URL=url)
    records, expected = _flow_records(3, "p")
    harness.publish([Record("answers.formatted", b"\xff not an event", b"poison", []), *records])
    _wait_rows(harness, url, dict.fromkeys(expected, "formatted"))
    dead = harness.wait_for_keys("answers.formatted.dlq", {"poison"})
    info = read_dead_letter(list(dead[0].headers))
    assert info is not None and (info.stage, info.error_code) == ("store", "invalid_utf8")
    assert "poison" not in _rows(url)


def test_database_down_mid_stream_then_back_resumes_without_loss(
    harness: Harness, pg_server: Any
) -> None:
    if not pg_server.can_restart:
        pytest.skip("the PostgreSQL server of this run cannot be stopped by the tests")
    url = pg_server.new_database()
    harness.create_topics(["store"])
    harness.start("store", CITEFLOW_STORE_URL=url, CITEFLOW_BATCH_SIZE="10")
    first, first_ids = _flow_records(20, "db1")
    harness.publish(first)
    _wait_rows(harness, url, dict.fromkeys(first_ids, "formatted"))
    pg_server.stop()
    try:
        second, second_ids = _flow_records(30, "db2", offset_s=1000)
        harness.publish(second)
        # The sink meets the outage and retries (nothing to commit meanwhile).
        harness.wait_for(lambda: "database write failed, retrying" in
                         [e.get("event") for e in harness.log_events("store")],
                         "the sink to retry a write during the outage")
        assert harness.processes[-1].poll() is None, "the sink died during the outage"
    finally:
        pg_server.start()
    rows = _wait_rows(harness, url, dict.fromkeys({**first_ids, **second_ids}, "formatted"))
    assert set(rows) == set(first_ids) | set(second_ids)
