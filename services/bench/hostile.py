"""`citeflow bench hostile`: the gateway's ordinary reads while one key (and keyless
clients) send the worst request of each hostile kind (`KINDS`), beside the same reads alone.

A real `citeflow serve` (one worker, the embedded broker, an SQLite store) serves
formatted answers to tenant `reader` at a fixed rate (open loop: queueing counts), and
`/healthz` is probed at 20/s. Then, for the same window, tenant `attacker` and keyless
clients run beside it: page renders of a PDF of huge pages at scale 4 (every page and scale
a fresh render), chapter reads of small zip bombs and of EPUBs filling the reader's caches,
oversized and half-sent request heads, trickled heads, oversize chunked bodies, and random
keys, all from their own address (`ATTACKER`, as from another machine: the reads come
from 127.0.0.1). Figures: reads p99 alone and under attack (target: within 2x), /healthz
p99 under attack (target: under 100 ms), and the gateway's peak RSS (target: under 512 MB;
its renderer processes are listed apart).

The clients run on the gateway's machine. So that their own work is not counted against the
gateway (an attacker sends from elsewhere), the gateway and its reader processes run on one
half of the machine's cores and the bench (its clients, the load generator, the broker) on
the other, in both windows (`shared=True` leaves every process on every core). Each window
also says where the CPU went: to the gateway's event loop, to the gateway with its reader
processes, to the bench, and to processes outside the bench. A window beside busy
neighbours is not a measurement of the gateway: compare the "outside" rows of both sides.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import os
import secrets
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from services.bench.e2e import percentile
from services.bench.gateway import (
    Bench,
    _stop,
    _wait_ready,
    formatted_result,
    read_id,
)
from services.bench.http_load import LoadResult, Target, run_load
from services.broker import create_topics, free_port, pipeline_topics, start_broker

Out = Callable[[str], None]
READS_PER_S = 200.0
READ_IDS = 200
HUGE_PAGES = 40  # pages of 4500x4500 pt: each (page, scale) is a fresh render
BOMBS = 4
FILLERS = 12  # EPUBs of ~20 MB of text each, within the decompression budget
ATTACKER = "127.0.0.2"  # loopback, but not the readers' address (nor a trusted proxy)


@dataclass
class Sampled:
    """Peak RSS of the gateway process and of its children, sampled every 100 ms."""

    gateway_peak: int = 0
    children_peak: int = 0
    samples: int = 0
    stop: threading.Event = field(default_factory=threading.Event)


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def _sample(pid: int, into: Sampled) -> None:
    while not into.stop.wait(0.1):
        into.gateway_peak = max(into.gateway_peak, _rss(pid))
        into.children_peak = max(into.children_peak,
                                 sum(_rss(child) for child in _children(pid)))
        into.samples += 1


HZ = os.sysconf("SC_CLK_TCK")


def _stat_ticks(path: str, fields: slice) -> int:
    """The sum of `fields` (after the command name) of a /proc stat file; 0 once gone."""
    try:
        with open(path) as handle:
            values = handle.read().rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return 0
    return sum(int(v) for v in values[fields])


def _own_and_reaped(pid: int) -> int:
    """CPU ticks of `pid` and of its children it has waited for."""
    return _stat_ticks(f"/proc/{pid}/stat", slice(11, 15))  # utime, stime, cutime, cstime


def _tree_ticks(pid: int) -> int:
    return _own_and_reaped(pid) + sum(_tree_ticks(child) for child in _children(pid))


def _thread_ticks(pid: int) -> int:
    """CPU ticks of the main thread of `pid` alone (the gateway's event loop)."""
    return _stat_ticks(f"/proc/{pid}/task/{pid}/stat", slice(11, 13))  # utime, stime


def _busy_ticks() -> int:
    with open("/proc/stat") as handle:
        ticks = [int(t) for t in handle.readline().split()[1:]]
    return sum(ticks[:8]) - ticks[3] - ticks[4]  # all but idle and iowait


@dataclass
class CpuShares:
    """Cores used during a window: by the gateway and its reader processes, by the rest of
    the bench (its clients in this process and the load generator's, the embedded broker),
    and by everything else on the machine."""

    event_loop: float
    gateway: float
    clients: float
    outside: float


class CpuMeter:
    """Ticks at the start of a window, read again at its end."""

    def __init__(self, gateway_pid: int) -> None:
        self.gateway_pid = gateway_pid
        self.started = time.perf_counter()
        self.loop, self.gateway, self.total, self.busy = self._read()

    def _read(self) -> tuple[int, int, int, int]:
        # The gateway is this process's child and not waited for: it is in `total` live.
        return (_thread_ticks(self.gateway_pid), _tree_ticks(self.gateway_pid),
                _tree_ticks(os.getpid()), _busy_ticks())

    def shares(self) -> CpuShares:
        loop, gateway, total, busy = self._read()
        seconds = (time.perf_counter() - self.started) * HZ
        bench = total - self.total  # the gateway, the broker, this process, the clients
        served = gateway - self.gateway
        return CpuShares((loop - self.loop) / seconds, served / seconds,
                         (bench - served) / seconds,
                         max(busy - self.busy - bench, 0) / seconds)


def split_cores(cpus: set[int]) -> tuple[set[int], set[int]] | None:
    """The bench's cores and the gateway's: the first half of `cpus` and the rest (None
    with fewer than two)."""
    ordered = sorted(cpus)
    if len(ordered) < 2:
        return None
    half = len(ordered) // 2
    return set(ordered[:half]), set(ordered[half:])


def _pin(pid: int, cpus: set[int]) -> None:
    """Every thread of `pid` and of its descendants onto `cpus` (threads and processes
    started later inherit it from their parent)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for task in tasks:
        try:
            os.sched_setaffinity(int(task), cpus)
        except OSError:
            pass  # ended meanwhile
    for child in _children(pid):
        _pin(child, cpus)


def _probe_healthz(port: int, stop: threading.Event, latencies: list[float]) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        while not stop.wait(0.05):
            started = time.perf_counter()
            try:
                client.get("/healthz")
            except httpx.HTTPError:
                continue
            latencies.append((time.perf_counter() - started) * 1000)


# -- the documents an attacker uploads ------------------------------------------------------


def _huge_pdf() -> bytes:
    import pymupdf

    document = pymupdf.open()
    for n in range(HUGE_PAGES):
        page = document.new_page(width=4500, height=4500)
        page.insert_text((72, 72), f"page {n}", fontsize=400)
    return bytes(document.tobytes())


def _epub(chapters: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    manifest = "".join(f'<item id="c{i}" href="{name}" media-type="application/xhtml+xml"/>'
                       for i, name in enumerate(chapters))
    opf = (f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
           f'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
           f'<dc:identifier id="id">x</dc:identifier><dc:title>t</dc:title>'
           f'<dc:language>en</dc:language></metadata><manifest>{manifest}</manifest>'
           f'<spine>{spine}</spine></package>')
    container = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
                 'opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" '
                 'media-type="application/oebps-package+xml"/></rootfiles></container>')
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/epub+zip", zipfile.ZIP_STORED)
        archive.writestr("META-INF/container.xml", container)
        archive.writestr("content.opf", opf)
        for name, body in chapters.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def _chapter(text: str) -> bytes:
    return (f'<html xmlns="http://www.w3.org/1999/xhtml"><body><p>{text}</p></body></html>'
            ).encode()


def _bomb() -> bytes:
    """A 54 KB EPUB (a zip bomb): chapters of ~1 MB that compress ~500:1."""
    return _epub({f"c{i}.xhtml": _chapter("a " * 500_000) for i in range(30)})


def _filler(seed: int) -> bytes:
    """An EPUB of ~20 MB of varied text, within the budget (ratio ~3:1)."""
    import random

    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(5000)]
    return _epub({f"c{i}.xhtml": _chapter(" ".join(rng.choice(words) for _ in range(300_000)))
                  for i in range(10)})


async def _prepare(store_url: str, documents: Path) -> tuple[str, str, list[str]]:
    """Keys of the reader and the attacker, formatted answers to read, and the attacker's
    documents stored and marked ingested (as the store sink would after ingest)."""
    from services.ingest.documents.store import LocalDocumentStore
    from services.store.api import DocumentRecord, Position, ResultUpdate
    from services.store.sql import SqlStore
    from services.store.summary import summarize

    import orjson

    formatted = formatted_result()
    store = SqlStore(store_url)
    local = LocalDocumentStore(documents)
    try:
        await store.migrate()
        _, reader = await store.create_key("reader", frozenset({"read"}), rate_per_s=1e9)
        # The attacker's key has the gateway's default rate, as any tenant's would.
        _, attacker = await store.create_key("attacker", frozenset({"read", "submit"}))
        now = datetime.now(UTC)
        await store.apply([
            ResultUpdate(answer_id=read_id(n), tenant="reader", status="formatted",
                         event_id=str(uuid.uuid4()), event_time=now,
                         position=Position("answers.formatted", 0, n), result=formatted,
                         summary=summarize(orjson.loads(formatted)), submitted_at=now)
            for n in range(READ_IDS)])
        docs = [("huge", "pdf", _huge_pdf())]
        docs += [(f"bomb-{n}", "epub", _bomb() + bytes(n)) for n in range(BOMBS)]
        docs += [(f"filler-{n}", "epub", _filler(n)) for n in range(FILLERS)]
        ids = []
        for doc_id, fmt, data in docs:
            uri = local.put(data, fmt)
            await store.claim_document(DocumentRecord(
                doc_id=doc_id, tenant="attacker", status="ingested", format=fmt, path=uri,
                sha256=hashlib.sha256(data).hexdigest(), submitted_at=now,
                updated_at=now, sections=1, chunks=1))
            ids.append(doc_id)
        return reader, attacker, ids
    finally:
        await store.close()


# -- the attacks ----------------------------------------------------------------------------


def _raw(port: int, head: bytes, then: Callable[[socket.socket], None]) -> None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=15,
                                      source_address=(ATTACKER, 0)) as sock:
            sock.sendall(head)
            then(sock)
    except OSError:
        pass


def _drain(sock: socket.socket) -> None:
    while sock.recv(65536):
        pass


def _big_head(port: int) -> None:
    def more(sock: socket.socket) -> None:
        for _ in range(512):  # up to 32 MB of one header
            sock.sendall(b"a" * 65536)
        _drain(sock)

    _raw(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ", more)


def _half_head(port: int) -> None:
    _raw(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", _drain)


def _trickle(port: int) -> None:
    def trickle(sock: socket.socket) -> None:
        for n in range(100):
            time.sleep(1)
            sock.sendall(f"X-{n}: y\r\n".encode())

    _raw(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", trickle)


def _chunked(port: int, key: str) -> None:
    def body(sock: socket.socket) -> None:
        frame = b"10000\r\n" + b" " * 65536 + b"\r\n"
        for _ in range(4096):  # up to 256 MB
            sock.sendall(frame)
        _drain(sock)

    _raw(port, (f"POST /v1/answers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
                "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                ).encode(), body)


KINDS = ("render", "bomb", "fill", "keys", "head", "chunked", "half", "trickle")


def _attacks(port: int, attacker: str, doc_ids: list[str], stop: threading.Event,
             counts: dict[str, int], kinds: tuple[str, ...] = KINDS) -> list[threading.Thread]:
    base = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {attacker}"}
    lock = threading.Lock()

    def count(kind: str) -> None:
        with lock:
            counts[kind] = counts.get(kind, 0) + 1

    def loop(kind: str, action: Callable[[int], None]) -> threading.Thread:
        def run() -> None:
            n = 0
            while not stop.is_set():
                try:
                    action(n)
                    count(kind)
                except httpx.HTTPError:  # refused or cut off (a shut-out address): again
                    count(f"{kind} (no answer)")
                n += 1

        return threading.Thread(target=run, name=kind, daemon=True)

    client = httpx.Client(base_url=base, timeout=30, headers=auth,
                          transport=httpx.HTTPTransport(local_address=ATTACKER))
    scales = [0.5 + 0.25 * i for i in range(15)]

    renders = itertools.count()

    def render(_: int) -> None:
        n = next(renders)  # shared by the render threads: every render a fresh one
        page, scale = 1 + n % HUGE_PAGES, scales[(n // HUGE_PAGES) % len(scales)]
        client.get(f"/v1/documents/huge/pages/{page}.png", params={"scale": scale})

    bombs = [d for d in doc_ids if d.startswith("bomb-")]
    fillers = [d for d in doc_ids if d.startswith("filler-")]

    def bomb(n: int) -> None:
        client.get(f"/v1/documents/{bombs[n % len(bombs)]}/chapters/c0.xhtml")

    def fill(n: int) -> None:
        client.get(f"/v1/documents/{fillers[n % len(fillers)]}/chapters/c{n % 10}.xhtml")

    keyless = httpx.Client(base_url=base, timeout=30,
                           transport=httpx.HTTPTransport(local_address=ATTACKER))

    def random_key(n: int) -> None:
        keyless.get("/v1/answers", headers={"Authorization": f"Bearer {secrets.token_hex(16)}"})

    plan: dict[str, list[tuple[str, Callable[[int], None]]]] = {
        "render": [("page render (huge pages, every scale)", render)] * 3,
        "bomb": [("zip-bomb chapter", bomb)],
        "fill": [("cache-filling chapter", fill)],
        "keys": [("random key", random_key)],
        "head": [("32 MB header", lambda n: _big_head(port))],
        "chunked": [("oversize chunked body", lambda n: _chunked(port, attacker))],
        "half": [("half-sent head", lambda n: _half_head(port))] * 20,
        "trickle": [("trickled head", lambda n: _trickle(port))] * 5,
    }
    return [loop(kind, action) for name in kinds for kind, action in plan[name]]


def _attack_process(port: int, attacker: str, doc_ids: list[str], kinds: tuple[str, ...],
                    idle: bool, stop: Any, reports: Any) -> None:
    """The attack clients, in a process of their own (never holding the GIL the probe
    needs). `idle` (on the bench's own cores): at `SCHED_IDLE` in the bench's session
    (the idle class ranks them only within their autogroup), taking all the CPU the
    measuring clients (the read load, the probe) leave and never delaying them. Otherwise
    in a session of their own: where the kernel groups processes by session, a group apart
    from the measuring clients, as another machine's would be."""
    if idle:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.setsid()
    halt = threading.Event()
    counts: dict[str, int] = {}
    threads = _attacks(port, attacker, doc_ids, halt, counts, kinds)
    for thread in threads:
        thread.start()
    reports.put(len(threads))
    stop.wait()
    halt.set()
    reports.put(dict(counts))  # the threads still in a request end with the process


class Attackers:
    """The attack process for one window: started on entry, its counts added on exit."""

    def __init__(self, port: int, attacker: str, doc_ids: list[str],
                 kinds: tuple[str, ...], idle: bool, counts: dict[str, int]) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._reports = context.Queue()
        self._process = context.Process(
            target=_attack_process, daemon=True,
            args=(port, attacker, doc_ids, kinds, idle, self._stop, self._reports))
        self._counts = counts
        self.clients = 0

    def __enter__(self) -> Attackers:
        self._process.start()
        self.clients = self._reports.get(timeout=60)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        try:
            for kind, n in self._reports.get(timeout=30).items():
                self._counts[kind] = self._counts.get(kind, 0) + n
        finally:
            self._process.join(timeout=30)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()


# -- the run --------------------------------------------------------------------------------


@dataclass
class Phase:
    reads: LoadResult
    healthz_p99_ms: float
    healthz_count: int
    cpu: CpuShares


def _phase(port: int, gateway_pid: int, reader: str, seconds: float) -> Phase:
    reads = Target("127.0.0.1", port, "GET", "/v1/answers/{id}",
                   {"Authorization": f"Bearer {reader}"}, [], 0,
                   ids=[read_id(n) for n in range(READ_IDS)])
    stop = threading.Event()
    latencies: list[float] = []
    prober = threading.Thread(target=_probe_healthz, args=(port, stop, latencies), daemon=True)
    meter = CpuMeter(gateway_pid)
    prober.start()
    try:
        result = run_load(reads, seconds=seconds, rate=READS_PER_S, concurrency=8)
    finally:
        stop.set()
        prober.join(timeout=30)
    ordered = sorted(latencies)
    return Phase(result, percentile(ordered, 0.99) if ordered else float("nan"), len(ordered),
                 meter.shares())


def run(seconds: float, progress: Out, out: Out, kinds: tuple[str, ...] = KINDS,
        repeat: int = 2, shared: bool = False) -> None:
    broker = start_broker(free_port())
    try:
        with tempfile.TemporaryDirectory(prefix="citeflow-bench-hostile-") as tmp:
            workdir = Path(tmp)
            bench = Bench(broker.bootstrap, f"bh{uuid.uuid4().hex[:8]}.", workdir,
                          f"sqlite+aiosqlite:///{workdir / 'store.db'}")
            asyncio.run(create_topics(bench.bootstrap, pipeline_topics([], bench.prefix), 1))
            progress("preparing the store and the attacker's documents ...")
            reader, attacker, doc_ids = asyncio.run(_prepare(bench.store_url,
                                                             workdir / "documents"))
            _measure(bench, workdir, reader, attacker, doc_ids, seconds, progress, out, kinds,
                     repeat, shared)
    finally:
        broker.stop()


def _measure(bench: Bench, workdir: Path, reader: str, attacker: str, doc_ids: list[str],
             seconds: float, progress: Out, out: Out, kinds: tuple[str, ...],
             repeat: int, shared: bool) -> None:
    import subprocess
    import sys

    from services.bench.gateway import REPO_ROOT

    everywhere = os.sched_getaffinity(0)
    cores = None if shared else split_cores(everywhere)
    if cores:  # this process's threads, the broker; the load generator inherits it later
        _pin(os.getpid(), cores[0])
    port = free_port()
    log = open(workdir / "gateway.log", "ab")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve", "--port", str(port)],
        env={**bench.env(), "CITEFLOW_DOCUMENT_STORE": str(workdir / "documents"),
             "CITEFLOW_READER_CACHE": str(workdir / "cache"),
             "CITEFLOW_DATA_DIR": str(workdir / "data")},
        stdout=subprocess.DEVNULL, stderr=log, cwd=REPO_ROOT, start_new_session=True,
        preexec_fn=(lambda: os.sched_setaffinity(0, cores[1])) if cores else None)
    sampled = Sampled()
    calm: list[Phase] = []
    hostile: list[Phase] = []
    counts: dict[str, int] = {}
    try:
        _wait_ready(port, "/healthz", process)
        idle_rss = _rss(process.pid)
        sampler = threading.Thread(target=_sample, args=(process.pid, sampled), daemon=True)
        sampler.start()
        # Alternating windows, so a change of the machine's other load hits both sides.
        for round_ in range(1, repeat + 1):
            progress(f"round {round_}/{repeat}: reads alone, {READS_PER_S:.0f}/s for "
                     f"{seconds:.0f} s ...")
            calm.append(_phase(port, process.pid, reader, seconds))
            with Attackers(port, attacker, doc_ids, kinds, cores is not None,
                           counts) as attackers:
                progress(f"round {round_}/{repeat}: reads beside {attackers.clients} hostile "
                         f"clients for {seconds:.0f} s ...")
                hostile.append(_phase(port, process.pid, reader, seconds))
        sampled.stop.set()
        sampler.join(timeout=5)
        alive = process.poll() is None
    finally:
        sampled.stop.set()
        _stop(process)
        log.close()
        _pin(os.getpid(), everywhere)
    _report(calm, hostile, idle_rss, sampled, counts, alive, cores, out)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if len(ordered) % 2 else (
        ordered[len(ordered) // 2 - 1] + ordered[len(ordered) // 2]) / 2


def _report(calm: list[Phase], hostile: list[Phase], idle_rss: int, sampled: Sampled,
            counts: dict[str, int], alive: bool, cores: tuple[set[int], set[int]] | None,
            out: Out) -> None:
    mb = 1024 * 1024

    def med(phases: list[Phase], pick: Callable[[Phase], float]) -> float:
        return _median([pick(p) for p in phases])

    calm_p99, hostile_p99 = med(calm, lambda p: p.reads.p99_ms), med(hostile,
                                                                      lambda p: p.reads.p99_ms)
    ratio = hostile_p99 / calm_p99 if calm_p99 else float("nan")
    out("citeflow bench hostile: one gateway worker, ordinary reads "
        f"(GET /v1/answers/{{id}}, {READS_PER_S:.0f}/s open loop) beside hostile clients; "
        f"medians of {len(calm)} alternating rounds")
    out(f"{'':34}{'alone':>12}{'under attack':>14}{'target':>16}")
    out(f"{'reads p50 (ms)':34}{med(calm, lambda p: p.reads.p50_ms):12.1f}"
        f"{med(hostile, lambda p: p.reads.p50_ms):14.1f}")
    out(f"{'reads p99 (ms)':34}{calm_p99:12.1f}{hostile_p99:14.1f}{'<= 2x alone':>16}")
    out(f"{'reads p99 ratio':34}{'':12}{ratio:13.2f}x{'<= 2.00x':>16}")
    out(f"{'reads non-2xx':34}{sum(p.reads.errors for p in calm):12d}"
        f"{sum(p.reads.errors for p in hostile):14d}")
    out(f"{'/healthz p99 (ms)':34}{med(calm, lambda p: p.healthz_p99_ms):12.1f}"
        f"{med(hostile, lambda p: p.healthz_p99_ms):14.1f}{'< 100':>16}")
    out(f"{'gateway RSS (MB)':34}{idle_rss / mb:12.0f}{sampled.gateway_peak / mb:14.0f}"
        f"{'< 512 (peak)':>16}")
    out(f"{'reader processes RSS (MB, peak)':34}{'':12}{sampled.children_peak / mb:14.0f}")
    for label, pick in (("gateway event loop", lambda p: p.cpu.event_loop),
                        ("gateway + readers", lambda p: p.cpu.gateway),
                        ("bench clients + broker", lambda p: p.cpu.clients),
                        ("outside the bench", lambda p: p.cpu.outside)):
        out(f"{'CPU, ' + label + ' (cores)':34}{med(calm, pick):12.2f}"
            f"{med(hostile, pick):14.2f}")
    for side, phases in (("alone", calm), ("under attack", hostile)):
        out(f"  {side} per round: reads p99 (ms) / outside CPU (cores): " + ", ".join(
            f"{p.reads.p99_ms:.1f} / {p.cpu.outside:.2f}" for p in phases))
    out(f"gateway {'alive' if alive else 'DEAD'} after the attacks; hostile requests sent:")
    for kind, n in sorted(counts.items()):
        out(f"  {kind:40}{n:8d}")
