"""A page render has a pixel budget, runs in a renderer process with a
deadline, and its cache is bounded in bytes."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pymupdf
import pytest
from starlette.testclient import TestClient

from services.gateway.documents.renderer import (
    PageRenderer,
    PngCache,
    RenderBudget,
    RenderBusy,
    fit_scale,
)
from tests.services.gateway.documents.reader_app import ingested, make_app

A = {"Authorization": "Bearer key-a"}


def _huge_page_pdf() -> bytes:
    """The issue's PDF: one 4500x4500 pt page (under 1 KB)."""
    document = pymupdf.open()
    page = document.new_page(width=4500, height=4500)
    page.insert_text((72, 72), "huge")
    return document.tobytes()


def _client(tmp_path, budget: RenderBudget | None = None):
    app = make_app(tmp_path, render_budget=budget)
    client = TestClient(app)
    response = client.post("/v1/documents", files={"file": ("d.pdf", _huge_page_pdf())},
                           data={"doc_id": "huge"}, headers=A)
    assert response.status_code == 202
    ingested(app, "huge")
    return app, client


def test_a_huge_page_renders_within_the_pixel_budget_in_another_process(tmp_path):
    budget = RenderBudget(max_page_pixels=4_000_000, deadline_s=120.0)
    app, client = _client(tmp_path, budget)
    with client:
        response = client.get("/v1/documents/huge/pages/1.png?scale=4", headers=A)
        assert response.status_code == 200, response.text
        used = float(response.headers["x-render-scale"])
        assert used < 4
        pixmap = pymupdf.Pixmap(response.content)
        assert pixmap.width * pixmap.height <= budget.max_page_pixels
        assert pixmap.width == round(4500 * used)
        # Rendered by a renderer process, not in the gateway's.
        pool = app.state.reader.renderer._slots[0]
        assert pool is not None and pool._processes
        assert os.getpid() not in pool._processes
        # Cached: the same again, with the same scale said.
        again = client.get("/v1/documents/huge/pages/1.png?scale=4", headers=A)
        assert again.content == response.content
        assert again.headers["x-render-scale"] == response.headers["x-render-scale"]
    app.state.reader.renderer.close()


def test_a_render_past_its_deadline_is_a_503_and_the_renderer_recovers(tmp_path):
    # A deadline no renderer process can meet (starting one takes longer).
    app, client = _client(tmp_path, RenderBudget(deadline_s=0.001))
    with client:
        response = client.get("/v1/documents/huge/pages/1.png?scale=1", headers=A)
        assert response.status_code == 503 and response.json()["code"] == "renderer_busy"
        assert response.headers["retry-after"] == "2"
        assert app.state.reader.renderer._slots == [None]  # killed, started again on next use
        app.state.reader.renderer.budget = RenderBudget(deadline_s=120.0)
        assert client.get("/v1/documents/huge/pages/1.png?scale=1",
                          headers=A).status_code == 200
    app.state.reader.renderer.close()


def test_a_job_past_its_deadline_ends_only_its_own_reader_process(tmp_path):
    """With two reader processes, killing one tenant's job past its deadline ended the job
    another tenant had running beside it."""
    renderer = PageRenderer(tmp_path, RenderBudget(workers=2, deadline_s=120.0))
    fifo = tmp_path / "release"
    os.mkfifo(fifo)

    async def both() -> tuple[object, BaseException | None]:
        # tb's job reads the FIFO: it runs until the test writes to it, whatever the load.
        beside = asyncio.create_task(renderer.work("tb", Path.read_text, fifo))
        # Opening the FIFO for writing returns once tb's job opened it: it is running.
        writer = await asyncio.to_thread(os.open, fifo, os.O_WRONLY)
        try:
            # A deadline ta's job cannot meet (it sleeps 30 s); tb's keeps its own (120 s).
            renderer.budget = RenderBudget(workers=2, deadline_s=1.0)
            slow = await asyncio.gather(renderer.work("ta", time.sleep, 30),
                                        return_exceptions=True)
            os.write(writer, b"still running")
        finally:
            os.close(writer)
        return await beside, slow[0]

    try:
        for ready in renderer.warm():
            ready.result(timeout=60)
        beside, slow = asyncio.run(both())
        assert isinstance(slow, RenderBusy)
        assert beside == "still running"
    finally:
        renderer.close()


def test_too_many_pending_renders_are_refused_at_once(tmp_path):
    app, client = _client(tmp_path, RenderBudget(max_pending=0, deadline_s=120.0))
    with client:
        response = client.get("/v1/documents/huge/pages/1.png", headers=A)
        assert response.status_code == 503 and response.json()["code"] == "renderer_busy"


@pytest.mark.parametrize("width, height, scale", [(612, 792, 4.0), (4500, 4500, 4.0),
                                                  (14400, 14400, 0.5), (200_000, 200_000, 1)])
def test_fit_scale_keeps_every_render_within_the_budget(width, height, scale):
    used = fit_scale(width, height, scale, 12_000_000)
    assert 0 < used <= scale
    assert width * used * height * used <= 12_000_000
    if width * scale * height * scale <= 12_000_000:
        assert used == scale


def test_the_png_cache_is_bounded_in_bytes(tmp_path):
    cache = PngCache(tmp_path, max_bytes=2500)
    for n in range(5):
        cache.put(f"{n:02d}key", bytes(1000))
    on_disk = sum(p.stat().st_size for p in tmp_path.rglob("*.png"))
    assert on_disk <= 2500
    assert cache.get("04key") == bytes(1000) and cache.get("00key") is None
