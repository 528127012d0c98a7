"""The stream benchmark: one gateway process (`citeflow serve`, the real app) with 10, 100
and 1,000 SSE clients, beside a bare fan-out measured in the same run on the same broker
(Starlette's StreamingResponse, one aiokafka consumer, an unbounded queue per client). Per
server and client count: deliveries per second, p50/p99 delay from produce to receipt,
memory per client and clients cut off; then idle clients held for memory alone (10,000 at
under 30 KiB each is the target)."""

from __future__ import annotations

import argparse
import array
import asyncio
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from schemas.topics import ANSWERS_FORMATTED
from services.bench.servers import REPO_ROOT, Bench, serving
from services.broker import create_topics, free_port, pipeline_topics, start_broker
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_consumer, make_producer
from services.runtime.stage import Message

Out = Callable[[str], None]
TENANT = "bench"
# `bench-<8-digit sequence>-<19-digit produce time in ns>`: fixed width, read by position.
ID_PREFIX = b"bench-"
ID_WIDTH = len(ID_PREFIX) + 8 + 1 + 19
MARK = b'data: {"answer_id":"' + ID_PREFIX
CLIENTS_PER_PROCESS = 250
PAGE = 4096


# -- the bare fan-out (the reference) -------------------------------------------------------


def bare_fanout() -> Any:
    """Starlette + StreamingResponse: one consumer of answers.formatted from its end,
    each record decoded once, then encoded for each client and put on its unbounded
    queue (`?view=summary` leaves the result out, as the gateway's view does)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    from services.store.decode import decode_formatted

    config = RuntimeConfig.from_env()
    queues: dict[asyncio.Queue[bytes], bool] = {}  # queue -> full view

    def event(u: Any, full: bool) -> bytes:
        data = {"answer_id": u.answer_id, "tenant": u.tenant, "status": u.status,
                "model": u.model, "event_id": u.event_id, "event_time": u.event_time,
                "summary": u.summary, "result": orjson.Fragment(u.result) if full else None}
        return (b"id: %d\nevent: formatted\ndata: " % u.position.offset + orjson.dumps(data)
                + b"\n\n")

    async def consume() -> None:
        consumer = make_consumer(config, group_id=None)
        await consumer.start()
        try:
            from aiokafka import TopicPartition

            topic = config.physical(ANSWERS_FORMATTED)
            tps = [TopicPartition(topic, p)
                   for p in sorted(consumer.partitions_for_topic(topic) or ())]
            consumer.assign(tps)
            await consumer.seek_to_end(*tps)
            while True:
                for records in (await consumer.getmany(timeout_ms=500)).values():
                    for r in records:
                        update = decode_formatted(Message(ANSWERS_FORMATTED, r.value, r.key,
                                                          r.partition, r.offset))
                        for queue, full in queues.items():
                            queue.put_nowait(event(update, full))
        finally:
            await consumer.stop()

    async def stream(request: Request) -> StreamingResponse:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        queues[queue] = request.query_params.get("view") != "summary"

        async def events() -> AsyncIterator[bytes]:
            try:
                while True:
                    yield await queue.get()
            finally:
                queues.pop(queue, None)

        return StreamingResponse(events(), media_type="text/event-stream")

    async def healthz(request: Request) -> Response:
        return Response(b"ok")

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        task = asyncio.create_task(consume())
        yield
        task.cancel()

    return Starlette(routes=[Route("/stream", stream), Route("/healthz", healthz)],
                     lifespan=lifespan)


# -- SSE clients (run as their own processes) -----------------------------------------------


class _Client(asyncio.Protocol):
    """One SSE connection: counts events and their delays, reading only what it must."""

    def __init__(self, request: bytes, stats: _Stats, stall: bool) -> None:
        self.request = request
        self.stats = stats
        self.stall = stall  # stop reading once the response has started
        self.buffer = b""
        self.started = False
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.time_ns()
        buffer = self.buffer + data
        if not self.started and b"\r\n\r\n" in buffer:
            self.started = True
            self.stats.connected += 1
            if not buffer.startswith(b"HTTP/1.1 200"):
                self.stats.refused += 1
            if self.stall:
                self.transport.pause_reading()
        start = 0
        while True:
            at = buffer.find(MARK, start)
            if at < 0 or at + len(MARK) - len(ID_PREFIX) + ID_WIDTH > len(buffer):
                break
            produced = buffer[at + len(MARK) + 9: at + len(MARK) - len(ID_PREFIX) + ID_WIDTH]
            self.stats.delays.append(now - int(produced))
            start = at + len(MARK)
        self.buffer = buffer[max(start, len(buffer) - len(MARK) - ID_WIDTH):]

    def connection_lost(self, exc: Exception | None) -> None:
        self.stats.closed += 1


@dataclass
class _Stats:
    delays: array.array[int]
    connected: int = 0
    refused: int = 0
    closed: int = 0


async def _clients(port: int, path: str, key: str, count: int, out: Path,
                   stall: bool) -> None:
    """Connect `count` clients, say so on stdout, read until stdin closes (`stall`: stop
    reading at once, with a small receive buffer), then write the delays (ns, int64) to
    `out` and a JSON summary to stdout."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    loop = asyncio.get_running_loop()
    stats = _Stats(array.array("q"))
    request = (f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n"
               f"Authorization: Bearer {key}\r\n\r\n").encode()
    transports = []
    for n in range(count):
        sock = socket.socket()
        if stall:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await loop.sock_connect(sock, ("127.0.0.1", port))
        transport, _ = await loop.create_connection(
            lambda: _Client(request, stats, stall), sock=sock)
        transports.append(transport)
        if n % 100 == 99:
            await asyncio.sleep(0.05)  # under the server's listen backlog
    while stats.connected < count:
        await asyncio.sleep(0.05)
    print("connected", flush=True)
    await loop.run_in_executor(None, sys.stdin.read)
    for transport in transports:
        transport.close()
    out.write_bytes(stats.delays.tobytes())
    print(orjson.dumps({"refused": stats.refused, "closed": stats.closed}).decode(),
          flush=True)


@dataclass
class ClientGroup:
    """Client processes connected to one server."""

    processes: list[subprocess.Popen[bytes]]
    files: list[Path]

    def finish(self) -> tuple[list[int], dict[str, int]]:
        """Stop the clients; every delay (ns) and the summed counters."""
        delays: list[int] = []
        totals = {"refused": 0, "closed": 0}
        for process, path in zip(self.processes, self.files, strict=True):
            assert process.stdin is not None and process.stdout is not None
            process.stdin.close()
            summary = orjson.loads(process.stdout.readline())
            process.wait(timeout=60)
            for name in totals:
                totals[name] += summary[name]
            delays.extend(array.array("q", path.read_bytes()))
        return delays, totals


def connect_clients(bench: Bench, key: str, port: int, path: str, count: int,
                    stall: bool = False) -> ClientGroup:
    """Start client processes for `count` connections; returns once all are connected."""
    processes, files = [], []
    for n in range(math.ceil(count / CLIENTS_PER_PROCESS)):
        size = min(CLIENTS_PER_PROCESS, count - n * CLIENTS_PER_PROCESS)
        out = bench.workdir / f"delays-{uuid.uuid4().hex[:8]}.bin"
        files.append(out)
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "services.bench.stream", "clients", str(port), path,
             key, str(size), str(out), "stall" if stall else "read"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=bench.env(), cwd=REPO_ROOT))
    for process in processes:
        assert process.stdout is not None
        line = process.stdout.readline()
        if line.strip() != b"connected":
            raise RuntimeError(f"client process failed to connect: {line!r}")
    return ClientGroup(processes, files)


# -- publishing ----------------------------------------------------------------------------


def record_template() -> bytes:
    """An answers.formatted value (the tests' small answer, tenant `bench`) whose answer
    id and event id are fixed-width placeholders."""
    from schemas.envelope import encode, make_event
    from schemas.formatted import AnswerFormatted
    from services.bench.workload import bench_answer
    from services.pipeline import process_answer

    answer = bench_answer("X" * ID_WIDTH, words=80, citations=4, sources=2,
                          chunks_per_source=1, chunk_chars=300, verbatim_units=2, seed=0)
    answer["metadata"] = {"tenant": TENANT, "model": "bench-model"}
    result = process_answer(orjson.dumps(answer), event_id="bench")
    assert isinstance(result, AnswerFormatted), result
    return encode(make_event(result, subject="X" * ID_WIDTH, source="bench",
                             event_id="E" * ID_WIDTH))


async def publish(bench: Bench, rate: float, seconds: float) -> int:
    """answers.formatted records at `rate` a second for `seconds` (open loop, on an
    absolute schedule), each stamped with its produce time; returns how many."""
    config = RuntimeConfig.from_env({}, bootstrap_servers=bench.bootstrap,
                                    topic_prefix=bench.prefix)
    template = record_template()
    topic = config.physical(ANSWERS_FORMATTED)
    producer = make_producer(config)
    await producer.start()
    sent = []
    try:
        started = time.perf_counter()
        total = int(rate * seconds)
        for n in range(total):
            delay = started + n / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            answer_id = b"%s%08d-%019d" % (ID_PREFIX, n, time.time_ns())
            value = template.replace(b"X" * ID_WIDTH, answer_id).replace(
                b"E" * ID_WIDTH, b"E" + answer_id[1:])
            sent.append(await producer.send(topic, value, key=answer_id))
        await asyncio.gather(*sent)
    finally:
        await producer.stop()
    return len(sent)


# -- the measurements -----------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """Who connects and what is published."""

    name: str
    clients: int
    rate: float  # records a second
    view: str  # summary | full
    stall: bool = False  # the clients stop reading at once


@dataclass
class Row:
    server: str
    scenario: Scenario
    deliveries_per_s: float
    expected_per_s: float
    p50_ms: float | None
    p99_ms: float | None
    kib_per_client: float  # RSS with the clients connected minus before, per client
    grown_mib: float  # RSS growth while publishing (past saturation: unbounded or not)
    cpu: float  # the server's CPU seconds per second while publishing (1.0: one core)
    cut_off: int | None  # clients the server cut off (the gateway's metric; None: no such)
    refused: int


def server_pid(port: int) -> int:
    """The uvicorn process serving `port` (one worker: the process itself)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"uvicorn" in argv and str(port).encode() in argv:
            return int(entry.name)
    raise RuntimeError(f"no uvicorn process serves port {port}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


SERVERS = {
    # label: (factory, stream path, ready path)
    "citeflow gateway": ("services.gateway.app:app_from_env", "/v1/stream", "/readyz"),
    "bare fan-out": ("services.bench.stream:bare_fanout", "/stream", "/healthz"),
}


async def _publish_sampling(bench: Bench, rate: float, seconds: float,
                            pid: int) -> tuple[int, int]:
    """Publish while sampling the server's RSS; (records, peak RSS)."""
    peak = rss_bytes(pid)
    publishing = asyncio.create_task(publish(bench, rate, seconds))
    while not publishing.done():
        peak = max(peak, rss_bytes(pid))
        await asyncio.wait({publishing}, timeout=0.25)
    for _ in range(8):  # what is in flight at the end
        peak = max(peak, rss_bytes(pid))
        await asyncio.sleep(0.25)
    return publishing.result(), peak


def measure(bench: Bench, key: str, server: str, scenario: Scenario, seconds: float) -> Row:
    """A fresh server process, the scenario's clients connected, records published."""
    factory, path, ready = SERVERS[server]
    with serving(bench, factory, f"stream-{server.split()[-1]}-{scenario.name}",
                 ready_path=ready) as port:
        pid = server_pid(port)
        time.sleep(1.0)
        before = rss_bytes(pid)
        group = connect_clients(bench, key, port, f"{path}?view={scenario.view}",
                                scenario.clients, scenario.stall)
        time.sleep(1.0)
        held = rss_bytes(pid)
        cpu_before, started = cpu_seconds(pid), time.perf_counter()
        published, peak = asyncio.run(_publish_sampling(bench, scenario.rate, seconds, pid))
        cpu = (cpu_seconds(pid) - cpu_before) / (time.perf_counter() - started)
        cut_off = _overflows(port, key) if server == "citeflow gateway" else None
        delays, totals = group.finish()
    delays.sort()
    ms = [d / 1e6 for d in delays]
    return Row(server, scenario, len(ms) / seconds, published * scenario.clients / seconds,
               _percentile(ms, 0.50), _percentile(ms, 0.99),
               (held - before) / scenario.clients / 1024, (peak - held) / 2**20, cpu,
               cut_off, totals["refused"])


def _overflows(port: int, key: str) -> int:
    """The gateway's count of clients cut off (its /metrics: the key has scope ops)."""
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics",
                                     headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith("citeflow_stream_overflows_total "):
                return int(float(line.split()[1]))
    return 0


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return values[min(len(values) - 1, int(q * len(values)))]


def scenarios(clients: tuple[int, ...], rate: float, view: str, hold: int,
              stalled: int) -> list[Scenario]:
    """The client counts at `rate`; `hold` clients at one record a second (memory);
    `stalled` clients that stop reading while full results go out at 200 a second."""
    found = [Scenario(f"{n}", n, rate, view) for n in clients]
    if stalled:
        found.append(Scenario(f"stalled-{stalled}", stalled, 200.0, "full", stall=True))
    if hold:  # last: its 20,000 closed connections linger in TIME_WAIT for a minute
        found.append(Scenario(f"hold-{hold}", hold, 1.0, view))
    return found


def run_stream(bench: Bench, plan: list[Scenario], seconds: float,
               progress: Out) -> list[Row]:
    """Every scenario on both servers, one after the other (drift hits both), on
    `bench`'s broker and store (a `stream` key of tenant `bench` is created there)."""
    key = asyncio.run(_stream_key(bench))
    rows = []
    for scenario in plan:
        for server in SERVERS:
            progress(f"{server}: {scenario.clients} clients ({scenario.name}, "
                     f"{scenario.rate:.0f} results/s, {scenario.view} view) ...")
            rows.append(measure(bench, key, server, scenario, seconds))
    return rows


def report_stream(rows: list[Row], out: Out) -> None:
    out("GET /v1/stream: one server process; reference = bare fan-out, same run, same "
        "clients (results/s x clients = deliveries/s expected)")
    out(f"  {'scenario':14s} {'server':17s} {'deliv/s':>8s} {'of':>7s} {'p50 ms':>8s} "
        f"{'p99 ms':>8s} {'KiB/cl':>7s} {'grew MiB':>8s} {'CPU':>5s} {'cut off':>7s}")
    for r in rows:
        p50 = f"{r.p50_ms:8.1f}" if r.p50_ms is not None else "       -"
        p99 = f"{r.p99_ms:8.1f}" if r.p99_ms is not None else "       -"
        cut = f"{r.cut_off:7d}" if r.cut_off is not None else "      -"
        out(f"  {r.scenario.name:14s} {r.server:17s} {r.deliveries_per_s:8.0f} "
            f"{r.expected_per_s:7.0f} {p50} {p99} {r.kib_per_client:7.1f} "
            f"{r.grown_mib:8.1f} {r.cpu:5.2f} {cut}"
            + (f"  refused {r.refused}" if r.refused else ""))
    out("  CPU: the server's CPU seconds per second while publishing (clients, broker and "
        "publisher share the machine)")
    out("  targets: 1,000 clients at 50 results/s p99 < 100 ms; 10,000 clients "
        "held at < 30 KiB each; clients past their buffer cut off, memory bounded")


# -- standalone ----------------------------------------------------------------------------


async def _stream_key(bench: Bench) -> str:
    from services.store.sql import SqlStore

    store = SqlStore(bench.store_url)
    try:
        await store.migrate()
        _, secret = await store.create_key(TENANT, frozenset({"stream", "ops"}), name="bench-stream",
                                           rate_per_s=1e9)
    finally:
        await store.close()
    return secret


def run_standalone(plan: list[Scenario], seconds: float, partitions: int, out: Out,
                   progress: Out) -> None:
    """The benchmark on its own embedded broker (what `citeflow bench gateway` does for
    its parts)."""
    broker = start_broker(free_port())
    try:
        with tempfile.TemporaryDirectory(prefix="citeflow-bench-stream-") as tmp:
            workdir = Path(tmp)
            bench = Bench(broker.bootstrap, f"bs{uuid.uuid4().hex[:8]}.", workdir,
                          f"sqlite+aiosqlite:///{workdir / 'store.db'}")
            asyncio.run(create_topics(broker.bootstrap, pipeline_topics([], bench.prefix),
                                      partitions))
            report_stream(run_stream(bench, plan, seconds, progress), out)
    finally:
        broker.stop()


def main(argv: list[str]) -> None:
    if argv and argv[0] == "clients":
        port, path, key, count, out, mode = argv[1:7]
        asyncio.run(_clients(int(port), path, key, int(count), Path(out), mode == "stall"))
        return
    parser = argparse.ArgumentParser(prog="python -m services.bench.stream")
    parser.add_argument("--clients", default="10,100,1000")
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--hold", type=int, default=10_000)
    parser.add_argument("--stalled", type=int, default=100)
    parser.add_argument("--view", choices=("summary", "full"), default="summary")
    parser.add_argument("--partitions", type=int, default=int(os.environ.get(
        "CITEFLOW_PARTITIONS", "4")))
    args = parser.parse_args(argv)
    plan = scenarios(tuple(int(c) for c in args.clients.split(",") if c), args.rate,
                     args.view, args.hold, args.stalled)
    run_standalone(plan, args.seconds, args.partitions, print,
                   lambda line: print(line, file=sys.stderr, flush=True))


if __name__ == "__main__":
    main(sys.argv[1:])
