"""The reader processes: PDF pages rendered, and all other reader work done, off the
gateway's process, within a budget.

MuPDF holds the GIL while it renders, so a render in a gateway thread stops the event loop,
and one absurd page (4500x4500 pt at scale 4: 324 megapixels) took 6.6 s and 2 GB; lxml and
bleach on a large chapter did the same. Here:

- a pixel budget per render: the scale is lowered (to a quarter step) until the page fits
  `max_page_pixels`; the response says which scale it got (`X-Render-Scale`);
- renders and the reader's other work (reader_work.py) run in a pool of reader processes,
  never in the gateway process, at the idle scheduling class (Linux `SCHED_IDLE`): any
  other runnable process on the machine, the gateway first, takes the CPU from them at once;
- each job runs with a deadline: past it the process running it (each reader process runs
  one job at a time) is killed and started again, and the request gets a 503; the jobs of
  the other reader processes carry on;
- the tenants take turns at the reader processes (turns.py), and at most `max_pending`
  jobs of one tenant wait or run: more get 503 at once (nothing queues without bound); a
  job that waits a whole deadline for its turn gets a 503 too;
- rendered PNGs are cached on disk within `cache_bytes` (oldest out first).
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable
from pathlib import Path

from services.gateway.documents.turns import Turns
from services.private_files import private_dir, write_private
from services.ingest.documents.limits import MiB


@dataclass(frozen=True)
class RenderBudget:
    """What one render, and all renders of a gateway process, may cost."""

    max_page_pixels: int = 12_000_000  # the pixmap of one render (RGB: 36 MB)
    # seconds a job may wait for its turn, and then as many to run
    deadline_s: float = field(default_factory=lambda: float(os.environ.get(DEADLINE_ENV) or 10))
    workers: int = field(default_factory=lambda: int(os.environ.get(WORKERS_ENV) or 1))
    max_pending: int = 8  # per tenant
    cache_bytes: int = 256 * MiB


WORKERS_ENV = "CITEFLOW_READER_PROCESSES"
DEADLINE_ENV = "CITEFLOW_READER_DEADLINE_SECONDS"


class RenderBusy(Exception):
    """Too many renders pending, or one passed its deadline: the caller answers 503."""


def fit_scale(width_pt: float, height_pt: float, scale: float, max_pixels: int) -> float:
    """`scale`, lowered until the page fits `max_pixels` (quarter steps while they fit)."""
    area = max(width_pt, 1.0) * max(height_pt, 1.0)
    if area * scale * scale <= max_pixels:
        return scale
    fitting = math.sqrt(max_pixels / area)
    stepped = math.floor(fitting * 4) / 4
    return stepped if stepped > 0 else fitting


# -- in the renderer process ----------------------------------------------------------------

_open: OrderedDict[str, object] = OrderedDict()
_OPEN_DOCUMENTS = 2  # opened PDFs a renderer process keeps


def _yield_cpu() -> None:
    """Run only on CPU time nothing else wants: under `SCHED_IDLE` a waking process preempts
    this one at once, and the kernel places wakeups on this CPU as on an idle one. A nice
    value is not enough: with autogroups (one per session) it ranks this process only
    against its own gateway. And the gateway's autogroup is not charged for this process's
    CPU: it takes a session of its own, and that session's autogroup the lowest weight
    (nice 19), else the gateway's group, charged for its readers' renders, lost its turns
    to every other session on a busy machine."""
    if hasattr(os, "SCHED_IDLE"):
        try:
            os.setsid()
            with open("/proc/self/autogroup", "w") as autogroup:
                autogroup.write("19")
        except OSError:
            pass  # no autogroups here (or no new session): SCHED_IDLE alone
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.nice(10)


def _init_worker(gateway_pid: int) -> None:
    """A reader process ends with its gateway (even a `kill -9` of it), yields the CPU to
    everything else, and imports what its jobs need before the first one arrives."""
    from services.runtime.supervisor import die_with_parent

    die_with_parent()
    # A gateway that died while this process was starting (before the line above) sent no
    # signal: this process is the init process's now, and nobody's reader.
    if os.getppid() != gateway_pid:
        os._exit(0)
    _yield_cpu()
    import pymupdf  # noqa: F401

    import services.gateway.documents.reader_work  # noqa: F401


def _ready() -> bool:
    return True


def render_page(path: str, number: int, scale: float, max_pixels: int) -> tuple[bytes, float]:
    """In a renderer process: page `number` of the PDF at `path` as PNG within the budget,
    and the scale it was rendered at."""
    import pymupdf

    from services.ingest.documents.limits import DEFAULT_LIMITS
    from services.ingest.documents.pdf import PDF_FAILURES, open_pdf
    from services.ingest.documents.rejection import DocumentRejection

    document = _open.get(path)
    if document is None:
        document, _ = open_pdf(Path(path).read_bytes(), DEFAULT_LIMITS)
        _open[path] = document
        while len(_open) > _OPEN_DOCUMENTS:
            _open.popitem(last=False)
    _open.move_to_end(path)
    assert isinstance(document, pymupdf.Document)
    if not 1 <= number <= document.page_count:
        raise DocumentRejection(
            "page_out_of_range", f"page {number} is not in 1..{document.page_count}")
    try:
        page = document.load_page(number - 1)
        rect = page.rect
        used = fit_scale(rect.width, rect.height, scale, max_pixels)
        pixmap = page.get_pixmap(matrix=pymupdf.Matrix(used, used))
        return bytes(pixmap.tobytes("png")), used
    except PDF_FAILURES as exc:
        raise DocumentRejection("unreadable_page", f"page {number}: {exc}") from None


# -- in the gateway -------------------------------------------------------------------------


class PngCache:
    """Rendered pages on disk, at most `max_bytes` of them (least recently used out)."""

    def __init__(self, root: Path, max_bytes: int) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._sizes: OrderedDict[Path, int] | None = None
        self._lock = threading.Lock()

    def _index(self) -> OrderedDict[Path, int]:
        if self._sizes is None:
            found = sorted(((p.stat().st_mtime, p, p.stat().st_size)
                            for p in self.root.glob("*/*.png")), key=lambda t: t[0])
            self._sizes = OrderedDict((p, size) for _, p, size in found)
        return self._sizes

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.png"

    def get(self, key: str) -> bytes | None:
        path = self.path(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        with self._lock:
            index = self._index()
            if path in index:
                index.move_to_end(path)
        return data

    def put(self, key: str, data: bytes) -> None:
        if len(data) > self.max_bytes:
            return
        path = self.path(key)
        private_dir(path.parent)  # pages of every tenant's documents: 0700 / 0600
        partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        write_private(partial, data)
        os.replace(partial, path)
        with self._lock:
            index = self._index()
            index[path] = len(data)
            index.move_to_end(path)
            total = sum(index.values())
            while total > self.max_bytes and index:
                old, size = index.popitem(last=False)
                old.unlink(missing_ok=True)
                total -= size


class PageRenderer:
    """The gateway's side: `budget.workers` reader processes, each started on first use."""

    def __init__(self, cache_dir: Path, budget: RenderBudget | None = None) -> None:
        self.budget = budget or RenderBudget()
        self.cache = PngCache(cache_dir, self.budget.cache_bytes)
        # One single-process pool per reader process, so that a job past its deadline can
        # be ended without ending the jobs of the others.
        self._slots: list[ProcessPoolExecutor | None] = [None] * self.budget.workers
        self._idle = list(range(self.budget.workers))
        self._turns = Turns(self.budget.workers)
        self._pending: dict[str, int] = {}

    def _executor(self, slot: int) -> ProcessPoolExecutor:
        pool = self._slots[slot]
        if pool is None:
            pool = self._slots[slot] = ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker, initargs=(os.getpid(),))
        return pool

    def _kill(self, slot: int) -> None:
        """Past a deadline: end the reader process of `slot` (a render cannot be
        interrupted); it is started again for the next job."""
        pool, self._slots[slot] = self._slots[slot], None
        if pool is None:
            return
        # ProcessPoolExecutor has no public way to kill a busy worker; its processes are.
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    async def work(self, tenant: str, job: Callable[..., Any], *args: Any) -> Any:
        """`job(*args)` in a reader process, in `tenant`'s turn, within the deadline and the
        tenant's pending bound; RenderBusy when over budget (its own exceptions are raised
        here)."""
        pending = self._pending.get(tenant, 0)
        if pending >= self.budget.max_pending:
            raise RenderBusy("too many reader jobs are pending; try again shortly")
        self._pending[tenant] = pending + 1
        try:
            try:
                await self._turns.acquire(tenant, self.budget.deadline_s)
            except TimeoutError:
                raise RenderBusy("the reader is busy; try again shortly") from None
            try:
                return await self._run(job, *args)
            finally:
                self._turns.release(tenant)
        finally:
            self._pending[tenant] -= 1
            if not self._pending[tenant]:
                del self._pending[tenant]

    async def _run(self, job: Callable[..., Any], *args: Any) -> Any:
        slot = self._idle.pop()  # there is one: the turns run no more jobs than slots
        try:
            future = asyncio.wrap_future(self._executor(slot).submit(job, *args))
            try:
                return await asyncio.wait_for(future, self.budget.deadline_s)
            except TimeoutError:
                self._kill(slot)
                raise RenderBusy(
                    f"the reader took longer than {self.budget.deadline_s:g} s") from None
        finally:
            self._idle.append(slot)

    async def render(self, tenant: str, path: str, key: str, number: int,
                     scale: float) -> tuple[bytes, float]:
        """The page as PNG and the scale used; RenderBusy when over budget."""
        cache_key = f"{key}-{number}@{scale:g}"
        cached = await asyncio.to_thread(self.cache.get, cache_key)
        if cached is not None:
            return cached, float(await asyncio.to_thread(self._scale_of, cache_key, scale))
        data, used = await self.work(tenant, render_page, path, number, scale,
                                     self.budget.max_page_pixels)
        await asyncio.to_thread(self._store, cache_key, data, used)
        return data, used

    def _store(self, cache_key: str, data: bytes, used: float) -> None:
        self.cache.put(cache_key, data)
        if used != float(cache_key.rsplit("@", 1)[1]):
            self.cache.path(cache_key).with_suffix(".scale").write_text(f"{used:g}")

    def _scale_of(self, cache_key: str, requested: float) -> float:
        marker = self.cache.path(cache_key).with_suffix(".scale")
        try:
            return float(marker.read_text())
        except (FileNotFoundError, ValueError):
            return requested

    def warm(self) -> list[Future[bool]]:
        """Start the reader processes now (their imports take a second or two), so the
        first reader request does not wait for them; one future each, done when ready."""
        return [self._executor(slot).submit(_ready) for slot in range(len(self._slots))]

    def close(self) -> None:
        pools, self._slots = self._slots, [None] * len(self._slots)
        for pool in pools:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
