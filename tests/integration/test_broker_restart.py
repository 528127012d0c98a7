"""kill -9 the embedded broker (its log is in memory) during a 500-answer load through the
gateway, restart it: after `citeflow answers redrive`, every answer that got a 202 has
exactly one outcome in the store (formatted or rejected), none is lost."""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Any

import httpx
import orjson
import pytest
from click.testing import CliRunner

from services.broker import free_port, start_broker
from services.cli import main
from services.store.sql import SqlStore
from tests.integration.conftest import Harness, small_answers
from tests.integration.test_gateway_pipeline import Gateway, _key, _records

pytestmark = pytest.mark.integration


def _load(url: str, key: str, answers: list[dict[str, Any]], accepted: list[str],
          refused: list[dict[str, Any]]) -> None:
    """Submit each answer once: a 202 is a promise; anything else (503 while the broker is
    down, a dropped connection) is not, and is kept to be sent again."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"},
                      timeout=30) as client:
        for answer in answers:
            try:
                r = client.post("/v1/answers", content=orjson.dumps(answer))
            except httpx.HTTPError:
                refused.append(answer)
                continue
            if r.status_code == 202:
                accepted.append(answer["answer_id"])
            else:
                assert r.status_code == 503, r.text
                refused.append(answer)


async def _rows(url: str) -> list[Any]:
    store = SqlStore(url)
    try:
        rows: list[Any] = []
        async with store.engine.connect() as conn:
            result = await conn.exec_driver_sql(
                "SELECT answer_id, tenant, status FROM answers WHERE tenant = 'acme'")
            rows = list(result)
        return rows
    finally:
        await store.close()


def test_kill_9_the_embedded_broker_during_a_gateway_load(tmp_path: Any,
                                                          pipeline_specs: list[str]) -> None:
    port = free_port()
    broker = start_broker(port)
    harness = Harness(broker.bootstrap, "k9b.", tmp_path)
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    try:
        harness.create_topics([*pipeline_specs, "store"])
        key = asyncio.run(_key(url))
        gateway = Gateway(harness, url)
        gateway.start()
        for spec in pipeline_specs:
            harness.start(spec)
        harness.start("store", CITEFLOW_STORE_URL=url)
        answers = small_answers(500, prefix="bk")
        for answer in answers:
            answer["metadata"] = None
        accepted: list[str] = []
        refused: list[dict[str, Any]] = []
        clients = [threading.Thread(target=_load, args=(gateway.url, key, answers[n::4],
                                                        accepted, refused))
                   for n in range(4)]
        for thread in clients:
            thread.start()
        harness.wait_for(lambda: len(accepted) >= 150, "150 answers accepted")
        broker.process.send_signal(signal.SIGKILL)
        broker.process.wait(timeout=10)
        killed_at = len(accepted)
        broker = start_broker(port)  # the same address, an empty log
        harness.create_topics([*pipeline_specs, "store"])
        for thread in clients:
            thread.join(timeout=300)
        assert not any(thread.is_alive() for thread in clients)
        # What the dead broker refused is sent again, now that one is up.
        while refused:
            retry, refused[:] = list(refused), []
            _load(gateway.url, key, retry, accepted, refused)
        assert sorted(accepted) == sorted(a["answer_id"] for a in answers)
        assert len(accepted) == len(set(accepted)) == 500 and killed_at < 500

        result = CliRunner().invoke(
            main, ["answers", "redrive", "--bootstrap", broker.bootstrap, "--prefix",
                   harness.prefix], env={"CITEFLOW_STORE_URL": url})
        assert result.exit_code == 0, result.output
        assert "re-drove" in result.output

        def every_answer_has_an_outcome() -> bool:
            records = asyncio.run(_records(url, accepted, "acme"))
            return len(records) == 500 and all(
                r.status in ("formatted", "rejected") for r in records.values())

        harness.wait_for(every_answer_has_an_outcome, "an outcome for every accepted answer",
                         timeout=300)
        rows = asyncio.run(_rows(url))
        assert sorted(row[0] for row in rows) == sorted(accepted)  # one row each, none twice
        # Running it again finds nothing left to do.
        again = CliRunner().invoke(
            main, ["answers", "redrive", "--bootstrap", broker.bootstrap, "--prefix",
                   harness.prefix], env={"CITEFLOW_STORE_URL": url})
        assert again.exit_code == 0 and "re-drove 0 unfinished" in again.output, again.output
    finally:
        harness.stop_all()
        broker.stop()
