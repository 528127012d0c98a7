"""`citeflow bench client`: submits through the Python client (`citeflow.client`) beside raw
httpx posting the same answers, sync (one caller, one request at a time) and async (many
concurrent callers on one event loop), against a real `citeflow serve` on the embedded
broker and a SQLite store. Both sides send the same request (JSON body, bearer key, a fresh
Idempotency-Key), so the difference is the client's own work: building the request, the
retry wrapper, parsing the 202 into its model."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from citeflow.client import AsyncClient, Client
from services.bench.gateway import (
    Bench,
    Out,
    _prepare_store,
    answer_templates,
    formatted_result,
    serving,
)
from services.broker import create_topics, free_port, pipeline_topics, start_broker

GATEWAY = "services.gateway.app:app_from_env"


@dataclass
class Window:
    """One measured window of one side: requests done and their latencies (ms)."""

    count: int
    seconds: float
    latencies: list[float]

    @property
    def rate(self) -> float:
        return self.count / self.seconds

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _answers() -> Callable[[], dict[str, Any]]:
    """A maker of distinct answers (the gateway's bench bodies under fresh ids)."""
    shapes = [orjson.loads(body) for body in answer_templates()]
    counter = iter(range(10**9))

    def make() -> dict[str, Any]:
        n = next(counter)
        return {**shapes[n % len(shapes)], "answer_id": f"bc-{uuid.uuid4().hex[:12]}-{n}"}

    return make


def _raw_headers(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
            "Idempotency-Key": uuid.uuid4().hex}


def sync_window(submit: Callable[[dict[str, Any]], Any], seconds: float) -> Window:
    make = _answers()
    latencies: list[float] = []
    start = time.perf_counter()
    while (now := time.perf_counter()) - start < seconds:
        submit(make())
        latencies.append((time.perf_counter() - now) * 1000)
    return Window(len(latencies), time.perf_counter() - start, latencies)


async def async_window(submit: Callable[[dict[str, Any]], Awaitable[Any]], seconds: float,
                       concurrency: int) -> Window:
    make = _answers()
    latencies: list[float] = []
    start = time.perf_counter()

    async def caller() -> None:
        while (now := time.perf_counter()) - start < seconds:
            await submit(make())
            latencies.append((time.perf_counter() - now) * 1000)

    await asyncio.gather(*(caller() for _ in range(concurrency)))
    return Window(len(latencies), time.perf_counter() - start, latencies)


def sync_sides(url: str, key: str) -> dict[str, Callable[[dict[str, Any]], Any]]:
    client = Client(url, key)
    raw = httpx.Client(base_url=url, timeout=60)

    def post(answer: dict[str, Any]) -> Any:
        response = raw.post("/v1/answers", content=orjson.dumps(answer),
                            headers=_raw_headers(key))
        assert response.status_code == 202, response.text
        return response.json()

    return {"client": client.submit, "raw httpx": post}


def measure(url: str, key: str, seconds: float, concurrency: int, repeat: int,
            progress: Out) -> dict[tuple[str, str], list[Window]]:
    """Windows per (mode, side), the sides alternating in every round."""
    found: dict[tuple[str, str], list[Window]] = {}
    sync = sync_sides(url, key)
    for name, submit in sync.items():  # warm-up
        sync_window(submit, 0.5)
    for round_number in range(repeat):
        order = list(sync.items())[:: 1 if round_number % 2 == 0 else -1]
        for name, submit in order:
            progress(f"round {round_number + 1}: sync {name} ...")
            found.setdefault(("sync", name), []).append(sync_window(submit, seconds))
        for name, window in asyncio.run(_async_round(url, key, seconds, concurrency,
                                                     round_number, progress)):
            found.setdefault((f"async x{concurrency}", name), []).append(window)
    return found


async def _async_round(url: str, key: str, seconds: float, concurrency: int,
                       round_number: int, progress: Out) -> list[tuple[str, Window]]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with AsyncClient(url, key, limits=limits) as client, \
            httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as raw:

        async def post(answer: dict[str, Any]) -> Any:
            response = await raw.post("/v1/answers", content=orjson.dumps(answer),
                                      headers=_raw_headers(key))
            assert response.status_code == 202, response.text
            return response.json()

        sides: list[tuple[str, Callable[[dict[str, Any]], Awaitable[Any]]]] = [
            ("client", client.submit), ("raw httpx", post)]
        if round_number == 0:
            for _, submit in sides:
                await async_window(submit, 0.5, concurrency)
        results = []
        for name, submit in sides[:: 1 if round_number % 2 == 0 else -1]:
            progress(f"round {round_number + 1}: async {name} ...")
            results.append((name, await async_window(submit, seconds, concurrency)))
        return results


ACCEPTED = orjson.dumps({"answer_id": "x", "event_id": "e", "status": "submitted",
                         "location": "/v1/answers/x"})


def local_cost(rounds: int, count: int = 3000) -> dict[str, float]:
    """Microseconds per submit of each side with no network and no gateway (an httpx
    MockTransport answering 202): the client's own cost, free of the server's noise."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(202, content=ACCEPTED,
                              headers={"content-type": "application/json"})

    transport = httpx.MockTransport(answer)
    client = Client("http://local", "key", transport=transport)
    raw = httpx.Client(base_url="http://local", transport=transport)

    def post(body: dict[str, Any]) -> Any:
        response = raw.post("/v1/answers", content=orjson.dumps(body),
                            headers=_raw_headers("key"))
        assert response.status_code == 202
        return response.json()

    costs: dict[str, list[float]] = {"client": [], "raw httpx": []}
    for _ in range(rounds):
        for name, submit in (("client", client.submit), ("raw httpx", post)):
            make = _answers()
            bodies = [make() for _ in range(count)]
            start = time.perf_counter()
            for body in bodies:
                submit(body)
            costs[name].append((time.perf_counter() - start) / count * 1e6)
    return {name: statistics.median(values) for name, values in costs.items()}


def report(found: dict[tuple[str, str], list[Window]], out: Out) -> None:
    out("submit through the Python client beside raw httpx (same requests; medians of "
        "the rounds)")
    out(f"{'mode':<12} {'side':<10} {'submits/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
    modes = dict.fromkeys(mode for mode, _ in found)
    for mode in modes:
        rates = {}
        for side in ("client", "raw httpx"):
            windows = found[(mode, side)]
            rate = statistics.median(w.rate for w in windows)
            rates[side] = rate
            p50 = statistics.median(w.quantile(0.5) for w in windows)
            p99 = statistics.median(w.quantile(0.99) for w in windows)
            out(f"{mode:<12} {side:<10} {rate:>10.0f} {p50:>8.2f} {p99:>8.2f}")
        overhead = 100 * (rates["raw httpx"] - rates["client"]) / rates["raw httpx"]
        out(f"{mode:<12} client overhead {overhead:+.1f}% of raw httpx's rate")


def run_benchmark(seconds: float, concurrency: int, repeat: int, progress: Out,
                  out: Out) -> None:
    broker = start_broker(free_port())
    try:
        with tempfile.TemporaryDirectory(prefix="citeflow-bench-client-") as tmp:
            workdir = Path(tmp)
            bench = Bench(broker.bootstrap, f"bc{uuid.uuid4().hex[:8]}.", workdir,
                          f"sqlite+aiosqlite:///{workdir / 'store.db'}")
            asyncio.run(create_topics(broker.bootstrap, pipeline_topics([], bench.prefix), 4))
            bench.key = asyncio.run(_prepare_store(bench, formatted_result()))
            with serving(bench, GATEWAY, "gateway", ready_path="/readyz") as port:
                found = measure(f"http://127.0.0.1:{port}", bench.key, seconds, concurrency,
                                repeat, progress)
            report(found, out)
            cost = local_cost(repeat)
            out("client-side cost per submit, no network (httpx MockTransport answering 202), "
                "median of the rounds:")
            for name, micros in cost.items():
                out(f"  {name:<10} {micros:8.1f} us")
            out(f"  client overhead {cost['client'] - cost['raw httpx']:+.1f} us per submit")
    finally:
        broker.stop()
