"""The benchmark's HTTP load generator against a real uvicorn server (no broker): it counts
what the server answered, closed loop and at a fixed rate, and every POST is a new id."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import orjson
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from services.bench.http_load import Target, run_load
from services.broker import free_port

SEEN: list[str] = []


async def echo(request: Request) -> Response:
    body = orjson.loads(await request.body())
    SEEN.append(body["answer_id"])
    status = 202 if request.headers.get("authorization") == "Bearer k" else 401
    return Response(b"{}", status, media_type="application/json")


@pytest.fixture
def server() -> Iterator[int]:
    port = free_port()
    config = uvicorn.Config(Starlette(routes=[Route("/v1/answers", echo, methods=["POST"])]),
                            port=port, log_level="warning", lifespan="off")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    while not instance.started:
        time.sleep(0.05)
    yield port
    instance.should_exit = True
    thread.join(timeout=10)


def _target(port: int, key: str) -> Target:
    templates = [orjson.dumps({"answer_id": "X" * 12, "text": "t" * n}) for n in (10, 500)]
    return Target("127.0.0.1", port, "POST", "/v1/answers", {"Authorization": f"Bearer {key}"},
                  templates, 12)


def test_closed_loop_counts_every_answer_and_ids_are_new(server: int) -> None:
    SEEN.clear()
    result = run_load(_target(server, "k"), seconds=1.0, concurrency=4)
    assert result.count > 0 and result.statuses == {202: result.count}
    assert result.rate > 0 and result.p50_ms <= result.p99_ms
    assert len(SEEN) == len(set(SEEN)) >= result.count


def test_open_loop_holds_the_rate_and_reports_errors(server: int) -> None:
    result = run_load(_target(server, "wrong"), seconds=1.0, concurrency=4, rate=50)
    assert result.errors == result.count == sum(result.statuses.values())
    # The schedule, not the clock, decides: the requests due in the measured second.
    assert abs(result.count - 50) <= 1
