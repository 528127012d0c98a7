"""`citeflow bench gateway`: the HTTP gateway against what a user would put in front of
Kafka instead, measured in the same run on the same broker. Part `submit`: sustained
`POST /v1/answers` through the real gateway beside bare Starlette and FastAPI endpoints and a
raw aiokafka producer, then latency at half the gateway's own rate. Part `read`:
`GET /v1/answers/{id}` at a fixed rate during submits. Part `stream`: services.bench.stream.
Servers run as their own uvicorn processes (services.bench.servers), the load in another.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa

from schemas.envelope import payload_json
from schemas.formatted import AnswerFormatted
from schemas.topics import ANSWERS_SUBMITTED
from services.bench.http_load import LoadResult, Target, run_load
from services.bench.servers import REPO_ROOT, Bench, serving  # noqa: F401 - REPO_ROOT: bench.hostile
from services.bench.servers import stop_server as _stop  # noqa: F401 - used by bench.hostile
from services.bench.servers import wait_ready as _wait_ready  # noqa: F401 - likewise
from services.bench.workload import bench_answer
from services.broker import create_topics, free_port, pipeline_topics, start_broker
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_producer

# (words, citations, sources, chunks per source, chunk chars): 5.8, 6.8 and 7.5 KB bodies.
SHAPES = ((150, 6, 3, 2, 300), (200, 8, 3, 2, 350), (250, 8, 3, 2, 400))
ID_WIDTH = 24  # answer ids are padded to this width so bodies are templates
READ_IDS = 200
KARAPACE_SPEC_RATE = 1550.0  # Karapace's REST proxy, as its project reports it
Out = Callable[[str], None]


def answer_templates() -> list[bytes]:
    """Answer bodies whose `answer_id` is a fixed-width placeholder (`{id}` filled per
    request by the load generator, so every request is a new answer)."""
    bodies = []
    for n, (words, citations, sources, chunks, chars) in enumerate(SHAPES):
        answer = bench_answer("X" * ID_WIDTH, words=words, citations=citations,
                              sources=sources, chunks_per_source=chunks, chunk_chars=chars,
                              verbatim_units=2, seed=n)
        answer["metadata"] = {"model": f"bench-model-{n}"}
        bodies.append(orjson.dumps(answer))
    return bodies


# -- the bare endpoints (what a user would hand-roll) ---------------------------------------


def _bare_settings() -> tuple[RuntimeConfig, str]:
    config = RuntimeConfig.from_env()
    return config, config.physical(ANSWERS_SUBMITTED)


def _producing(config: RuntimeConfig, state: dict[str, Any]) -> Callable[[Any], Any]:
    """A lifespan holding a started aiokafka producer in `state["producer"]`."""

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        state["producer"] = make_producer(config)
        await state["producer"].start()
        yield
        await state["producer"].stop()

    return lifespan


def bare_starlette() -> Any:
    """Starlette: parse the JSON body, produce it keyed by answer_id (acks=all), 202."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    config, topic = _bare_settings()
    state: dict[str, Any] = {}

    async def submit(request: Request) -> Response:
        body = orjson.loads(await request.body())
        await state["producer"].send_and_wait(topic, orjson.dumps(body),
                                              key=body["answer_id"].encode())
        return Response(b'{"status":"accepted"}', 202, media_type="application/json")

    async def healthz(request: Request) -> Response:
        return Response(b"ok")

    return Starlette(routes=[Route("/v1/answers", submit, methods=["POST"]),
                             Route("/healthz", healthz)], lifespan=_producing(config, state))


def bare_validating() -> Any:
    """The bare Starlette endpoint plus the answer model's validation (pydantic, from the
    bytes): what validation alone costs, the one part of the gateway's work a hand-rolled
    endpoint that checks its input cannot skip (an informative reference, not a target)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from schemas.answers import AnswerSubmitted

    config, topic = _bare_settings()
    state: dict[str, Any] = {}

    async def submit(request: Request) -> Response:
        body = await request.body()
        answer = AnswerSubmitted.model_validate_json(body)
        await state["producer"].send_and_wait(topic, body, key=answer.answer_id.encode())
        return Response(b'{"status":"accepted"}', 202, media_type="application/json")

    async def healthz(request: Request) -> Response:
        return Response(b"ok")

    return Starlette(routes=[Route("/v1/answers", submit, methods=["POST"]),
                             Route("/healthz", healthz)], lifespan=_producing(config, state))


def bare_fastapi() -> Any:
    """The same endpoint on FastAPI (a dict body, as a hand-rolled FastAPI route takes it)."""
    from fastapi import Body, FastAPI
    from fastapi.responses import Response

    config, topic = _bare_settings()
    state: dict[str, Any] = {}
    app = FastAPI(lifespan=_producing(config, state))

    @app.post("/v1/answers", status_code=202)
    async def submit(body: dict[str, Any] = Body(...)) -> Response:  # noqa: B008
        await state["producer"].send_and_wait(topic, orjson.dumps(body),
                                              key=str(body["answer_id"]).encode())
        return Response(b'{"status":"accepted"}', 202, media_type="application/json")

    @app.get("/healthz")
    async def healthz() -> Response:
        return Response(b"ok")

    return app


async def _prepare_store(bench: Bench, formatted: bytes) -> str:
    """Migrate the store, create the bench key, and store READ_IDS formatted results."""
    from services.store.api import Position, ResultUpdate
    from services.store.sql import SqlStore
    from services.store.summary import summarize

    store = SqlStore(bench.store_url)
    try:
        await store.migrate()
        _, secret = await store.create_key("bench", frozenset({"submit", "read"}),
                                           name="bench", rate_per_s=1e9)
        now = datetime.now(UTC)
        summary = summarize(orjson.loads(formatted))
        await store.apply([
            ResultUpdate(answer_id=read_id(n), tenant="bench", status="formatted",
                         event_id=str(uuid.uuid4()), event_time=now,
                         position=Position("answers.formatted", 0, n), result=formatted,
                         summary=summary, submitted_at=now)
            for n in range(READ_IDS)
        ])
    finally:
        await store.close()
    return secret


def read_id(n: int) -> str:
    return f"read-{n:06d}"


def formatted_result() -> bytes:
    """A real answer.formatted data object of one bench body (the in-process pipeline)."""
    from services.pipeline import process_answer

    raw = answer_templates()[1].replace(b"X" * ID_WIDTH, b"formatted-bench")
    result = process_answer(raw, event_id="bench")
    assert isinstance(result, AnswerFormatted), result
    return payload_json(result)


# -- the measurements -----------------------------------------------------------------------


GATEWAY_APP = "services.gateway.app:app_from_env"
RAW = "raw aiokafka producer"
BARE = "bare Starlette + aiokafka"
FASTAPI = "bare FastAPI + aiokafka"
VALIDATING = "bare Starlette + validation"
GATEWAY_1 = "citeflow gateway, 1 worker"
GATEWAY_2 = "citeflow gateway, 2 workers"
HALF_LOAD = (BARE, FASTAPI, GATEWAY_1)  # the sides measured at half their sustained rate
# (label, uvicorn factory, workers); the raw producer has no server.
SIDES: tuple[tuple[str, str | None, int], ...] = (
    (RAW, None, 0),
    (BARE, "services.bench.gateway:bare_starlette", 1),
    (FASTAPI, "services.bench.gateway:bare_fastapi", 1),
    (VALIDATING, "services.bench.gateway:bare_validating", 1),
    (GATEWAY_1, GATEWAY_APP, 1),
    (GATEWAY_2, GATEWAY_APP, 2),
)


@dataclass
class SubmitFigures:
    """Sustained rates of every round per side, latency at half load, reads under load."""

    rounds: dict[str, list[LoadResult]]
    half_load: dict[str, LoadResult] = field(default_factory=dict)
    read: LoadResult | None = None
    submit_during_read: LoadResult | None = None

    def rate(self, label: str) -> float:
        return statistics.median(r.rate for r in self.rounds[label])

    def ratio(self, ours: str, theirs: str) -> tuple[float, list[float]]:
        """The median and every round's ratio (both sides measured in the same round)."""
        each = [a.rate / b.rate for a, b in zip(self.rounds[ours], self.rounds[theirs],
                                                 strict=True)]
        return statistics.median(each), each


def _target(port: int, bench: Bench, path: str = "/v1/answers",
            auth: bool = True) -> Target:
    headers = {"Authorization": f"Bearer {bench.key}"} if auth else {}
    return Target("127.0.0.1", port, "POST", path, headers, answer_templates(), ID_WIDTH)


async def _raw_producer_rate(bench: Bench, seconds: float, concurrency: int) -> LoadResult:
    """A raw aiokafka producer sending the same bodies (keyed, acks=all), `concurrency`
    sends in flight: the limit any endpoint in front of it can reach."""
    config = RuntimeConfig.from_env({}, bootstrap_servers=bench.bootstrap,
                                    topic_prefix=bench.prefix)
    producer = make_producer(config)
    await producer.start()
    templates = answer_templates()
    topic = config.physical(ANSWERS_SUBMITTED)
    latencies: list[float] = []
    counter = iter(range(10**12))
    try:
        async def sender(deadline: float) -> None:
            while time.perf_counter() < deadline:
                n = next(counter)
                key = f"raw-{n:0{ID_WIDTH - 4}d}".encode()
                body = templates[n % len(templates)].replace(b"X" * ID_WIDTH, key)
                started = time.perf_counter()
                await producer.send_and_wait(topic, body, key=key)
                latencies.append(time.perf_counter() - started)

        warm = time.perf_counter() + 1.0
        await asyncio.gather(*(sender(warm) for _ in range(concurrency)))
        latencies.clear()
        started = time.perf_counter()
        await asyncio.gather(*(sender(started + seconds) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    finally:
        await producer.stop()
    return LoadResult.of(latencies, elapsed, {202: len(latencies)})


def _sustained(bench: Bench, label: str, factory: str | None, workers: int, seconds: float,
               concurrency: int) -> LoadResult:
    if factory is None:
        return asyncio.run(_raw_producer_rate(bench, seconds, concurrency))
    ready = "/readyz" if factory == GATEWAY_APP else "/healthz"
    with serving(bench, factory, label, workers=workers, ready_path=ready) as port:
        return run_load(_target(port, bench, auth=factory == GATEWAY_APP), seconds=seconds,
                        concurrency=concurrency)


def run_submit(bench: Bench, seconds: float, concurrency: int, repeat: int, progress: Out,
               read: bool) -> SubmitFigures:
    """`repeat` rounds over every side (alternating, so a busy spell of the machine hits
    all of them), then latency at half of each HTTP side's median rate."""
    figures = SubmitFigures({label: [] for label, _, _ in SIDES})
    for n in range(repeat):
        for label, factory, workers in SIDES:
            progress(f"round {n + 1}/{repeat}: {label} ...")
            figures.rounds[label].append(
                _sustained(bench, label, factory, workers, seconds, concurrency))
    for label, factory, _ in SIDES:
        if factory is None or label not in HALF_LOAD:
            continue
        progress(f"half load: {label} ...")
        gateway = factory == GATEWAY_APP
        with serving(bench, factory, label, ready_path="/readyz" if gateway else "/healthz"
                     ) as port:
            target = _target(port, bench, auth=gateway)
            half = figures.rate(label) / 2
            figures.half_load[label] = run_load(target, seconds=seconds, rate=half,
                                                concurrency=concurrency)
            if gateway and read:
                progress("GET /v1/answers/{id} under the submit load ...")
                figures.submit_during_read, figures.read = _read_under_load(
                    bench, port, target, seconds, half, concurrency)
    return figures


def _read_under_load(bench: Bench, port: int, submit: Target, seconds: float,
                     submit_rate: float, concurrency: int) -> tuple[LoadResult, LoadResult]:
    """Submits at `submit_rate` and, at the same time from another process, GETs of
    formatted results at a fixed 200/s."""
    from concurrent.futures import ThreadPoolExecutor

    reads = Target("127.0.0.1", port, "GET", "/v1/answers/{id}",
                   {"Authorization": f"Bearer {bench.key}"}, [], 0,
                   ids=[read_id(n) for n in range(READ_IDS)])
    with ThreadPoolExecutor(1) as pool:  # each run_load is its own process
        reading = pool.submit(run_load, reads, seconds=seconds, rate=200.0, concurrency=8)
        submitted = run_load(submit, seconds=seconds, rate=submit_rate,
                             concurrency=concurrency)
        return submitted, reading.result()


def karapace_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("karapace") is not None


# -- the command ----------------------------------------------------------------------------


def report_submit(figures: SubmitFigures, out: Out) -> None:
    rounds = len(figures.rounds[GATEWAY_1])
    out(f"POST /v1/answers, 5-8 KB answers, acks=all, sustained (closed loop), median of "
        f"{rounds} alternating rounds:")
    for label, results in figures.rounds.items():
        each = " ".join(f"{r.rate:.0f}" for r in results)
        errors = sum(r.errors for r in results)
        out(f"  {label:30s} {figures.rate(label):7.0f} req/s  (rounds: {each}; non-2xx "
            f"{errors})")

    def ratio(text: str, ours: str, theirs: str, target: str = "") -> None:
        median, each = figures.ratio(ours, theirs)
        rounds = " ".join(f"{r:.2f}" for r in each)
        out(f"  {text:36s} {median:5.2f}x  (rounds: {rounds}){target}")

    ratio("gateway / bare Starlette", GATEWAY_1, BARE, "  target >= 0.8")
    ratio("bare Starlette / bare FastAPI", BARE, FASTAPI)
    ratio("gateway / bare Starlette + validation", GATEWAY_1, VALIDATING, "  (informative)")
    ratio("gateway 2 workers / 1 worker", GATEWAY_2, GATEWAY_1, "  target: about 1.6-1.9")
    ratio("gateway / raw aiokafka producer", GATEWAY_1, RAW)
    gateway = figures.rate(GATEWAY_1)
    if karapace_available():
        out("  Karapace: installed but not wired into this benchmark")
    else:
        out(f"  Karapace REST proxy: not installable from this package index; against its "
            f"project's figure of {KARAPACE_SPEC_RATE:.0f} req/s (not measured in this run) the "
            f"gateway is {gateway / KARAPACE_SPEC_RATE:.2f}x (target >= 2)")
    out("latency at half of each side's median sustained rate (open loop, from each "
        "request's scheduled time):")
    for label, result in figures.half_load.items():
        out(f"  {label:30s} at {result.rate:6.0f} req/s  p50 {result.p50_ms:7.2f} ms  "
            f"p99 {result.p99_ms:7.2f} ms  non-2xx {result.errors}")
    if figures.read is not None and figures.submit_during_read is not None:
        r, s = figures.read, figures.submit_during_read
        out(f"GET /v1/answers/{{id}} at {r.rate:.0f} req/s while submitting at {s.rate:.0f} "
            f"req/s: p50 {r.p50_ms:.2f} ms  p99 {r.p99_ms:.2f} ms  non-2xx {r.errors}; the "
            f"submits meanwhile p50 {s.p50_ms:.2f} ms  p99 {s.p99_ms:.2f} ms")


PARTS = ("submit", "read", "stream")
# The stream part's scenarios: 10/100/1,000 clients at 50 results/s, 10,000 held
# at one a second, 100 that stop reading (python -m services.bench.stream varies them).
STREAM_CLIENTS = (10, 100, 1000)
STREAM_RATE = 50.0
STREAM_HOLD = 10_000
STREAM_STALLED = 100


def run_benchmark(parts: tuple[str, ...], seconds: float, concurrency: int, repeat: int,
                  bootstrap: str | None, partitions: int, progress: Out, out: Out,
                  store_url: str | None = None) -> None:
    """Run the asked parts on one broker (the embedded one unless `bootstrap`) and one
    store (a new SQLite file unless `store_url`)."""
    broker = None if bootstrap else start_broker(free_port())
    address = bootstrap or broker.bootstrap  # type: ignore[union-attr]
    try:
        with tempfile.TemporaryDirectory(prefix="citeflow-bench-gateway-") as tmp:
            workdir = Path(tmp)
            bench = Bench(address, f"bg{uuid.uuid4().hex[:8]}.", workdir,
                          store_url or f"sqlite+aiosqlite:///{workdir / 'store.db'}")
            asyncio.run(create_topics(address, pipeline_topics([], bench.prefix), partitions))
            shown = sa.make_url(bench.store_url).render_as_string(hide_password=True)
            progress(f"preparing the store {shown} (a key, formatted results to read) ...")
            bench.key = asyncio.run(_prepare_store(bench, formatted_result()))
            if "submit" in parts or "read" in parts:
                figures = run_submit(bench, seconds, concurrency, repeat, progress,
                                     "read" in parts)
                report_submit(figures, out)
            if "stream" in parts:
                from services.bench.stream import report_stream, run_stream, scenarios

                plan = scenarios(STREAM_CLIENTS, STREAM_RATE, "summary", STREAM_HOLD,
                                 STREAM_STALLED)
                report_stream(run_stream(bench, plan, max(seconds, 10.0), progress), out)
            progress(f"logs were in {workdir} (removed)")
    finally:
        if broker is not None:
            broker.stop()
