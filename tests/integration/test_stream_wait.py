"""`POST /v1/answers?wait=` through the real hub: the gateway app (create_app, its own hub
and store) under uvicorn, the five pipeline stages as processes on the embedded broker.
The answer submitted with a wait comes back formatted in the same call; a wait that runs
out (nothing can format: a stage is missing) is a 202."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from services.gateway.app import create_app
from services.gateway.settings import GatewaySettings
from services.store.sql import SqlStore
from tests.integration.conftest import Harness, small_answers
from tests.services.gateway.stream.helpers import serve

pytestmark = pytest.mark.integration


def test_submit_with_wait_returns_the_formatted_result(harness: Harness, tmp_path: Path,
                                                       pipeline_specs: list[str]) -> None:
    harness.create_topics(pipeline_specs)
    for spec in pipeline_specs:
        harness.start(spec)
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    answers = small_answers(2, prefix="wait")
    asyncio.run(_submit(harness, url, answers[0], wait=90.0, status=200))


def test_a_wait_that_runs_out_is_a_202(harness: Harness, tmp_path: Path) -> None:
    harness.create_topics(["ingest"])
    harness.start("ingest")  # no later stage: nothing is ever formatted
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    asyncio.run(_submit(harness, url, small_answers(1, prefix="late")[0], wait=2.0,
                        status=202))


async def _submit(harness: Harness, url: str, answer: dict, wait: float,
                  status: int) -> None:
    answer["metadata"] = {"model": "m-1"}  # the key's tenant is stamped on it
    store = SqlStore(url)
    await store.migrate()
    _, key = await store.create_key("acme", frozenset({"submit", "read"}))
    await store.close()
    settings = GatewaySettings(store_url=url, runtime=harness.config, max_wait_s=120.0)
    app = create_app(settings)
    async with serve(app) as base, httpx.AsyncClient(base_url=base, timeout=150) as client:
        while not app.state.hub.ready():
            await asyncio.sleep(0.05)
        response = await client.post(f"/v1/answers?wait={wait:g}", json=answer,
                                     headers={"Authorization": f"Bearer {key}"})
        assert response.status_code == status, response.text
        assert response.headers["location"] == f"/v1/answers/{answer['answer_id']}"
        if status == 200:
            body = response.json()
            assert body["answer_id"] == answer["answer_id"]
            assert body["citations"] and body["renderings"]
