"""An HTTP/1.1 load generator for the gateway benchmarks: keep-alive connections writing
pre-built requests (each with a fresh answer id) from their own process on uvloop, either
closed loop (as fast as the server answers: its sustained rate) or open loop at a fixed rate
(latency measured from each request's scheduled time, so queueing behind a slow response
counts: no coordinated omission)."""

from __future__ import annotations

import asyncio
import multiprocessing
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

from services.bench.e2e import percentile

WARMUP_S = 1.0


@dataclass(frozen=True)
class Target:
    """What to send: `templates` are bodies holding `"X" * id_width` where the request's id
    goes (POST); `ids` are cycled into `{id}` of the path (GET)."""

    host: str
    port: int
    method: str
    path: str
    headers: dict[str, str]
    templates: list[bytes]
    id_width: int
    ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LoadResult:
    count: int
    elapsed_s: float
    p50_ms: float
    p99_ms: float
    statuses: dict[int, int]

    @property
    def rate(self) -> float:
        return self.count / self.elapsed_s if self.elapsed_s else 0.0

    @property
    def errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if not 200 <= status < 300)

    @classmethod
    def of(cls, latencies_s: list[float], elapsed_s: float,
           statuses: dict[int, int]) -> LoadResult:
        ms = sorted(x * 1000 for x in latencies_s)
        if not ms:
            return cls(0, elapsed_s, float("nan"), float("nan"), statuses)
        return cls(len(ms), elapsed_s, percentile(ms, 0.5), percentile(ms, 0.99), statuses)


class _Requests:
    """Request bytes, one new answer id each (ids unique across runs: a random token)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.token = uuid.uuid4().hex[:8]
        self.n = 0
        head = [f"{target.method} {{path}} HTTP/1.1", f"Host: {target.host}:{target.port}",
                *(f"{k}: {v}" for k, v in target.headers.items())]
        self.head = "\r\n".join(head)
        self.placeholder = b"X" * target.id_width

    def next(self) -> bytes:
        n, self.n = self.n, self.n + 1
        t = self.target
        if t.templates:
            answer_id = f"{self.token}-{n}".rjust(t.id_width, "0").encode()
            body = t.templates[n % len(t.templates)].replace(self.placeholder, answer_id)
            return (self.head.format(path=t.path) + "\r\nContent-Type: application/json"
                    f"\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        path = t.path.format(id=t.ids[n % len(t.ids)]) if t.ids else t.path
        return (self.head.format(path=path) + "\r\n\r\n").encode()


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    request: bytes) -> int:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    lower = head.lower()
    at = lower.find(b"content-length:")
    if at >= 0:
        end = lower.index(b"\r\n", at)
        await reader.readexactly(int(lower[at + 15:end]))
    return status


async def _load(target: Target, seconds: float, concurrency: int,
                rate: float | None) -> LoadResult:
    requests = _Requests(target)
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    scheduled = 0
    start = time.perf_counter()
    measured_from = start + WARMUP_S
    end = measured_from + seconds
    last_done = measured_from

    async def worker() -> None:
        nonlocal scheduled, last_done
        reader, writer = await asyncio.open_connection(target.host, target.port)
        try:
            while True:
                if rate is None:
                    due = time.perf_counter()
                else:
                    due = start + scheduled / rate
                    scheduled += 1
                    delay = due - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                if due >= end:
                    return
                status = await _exchange(reader, writer, requests.next())
                if due >= measured_from:
                    last_done = time.perf_counter()
                    latencies.append(last_done - due)
                    statuses[status] += 1
        finally:
            writer.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return LoadResult.of(latencies, last_done - measured_from, dict(statuses))


def _run_here(target: Target, seconds: float, concurrency: int,
              rate: float | None) -> LoadResult:
    import uvloop

    return uvloop.run(_load(target, seconds, concurrency, rate))


def run_load(target: Target, *, seconds: float, concurrency: int,
             rate: float | None = None) -> LoadResult:
    """Load `target` from a new process: closed loop without `rate`, else open loop at
    `rate` requests per second."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_run_here, (target, seconds, concurrency, rate))
