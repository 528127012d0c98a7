"""A foreign host page for <citeflow-answer>: its own origin, its own strict CSP and
hostile styles; the component script comes from the gateway's origin, the API through the
host's own proxy route (the key stays on the host's server, never in the browser)."""

from __future__ import annotations

import asyncio
import html
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from services.broker import free_port

HOST_CSS = """
* { font-family: serif !important; color: rgb(200, 0, 0) !important; }
.answer, .panel, .card, mark { display: none !important; background: black !important; }
citeflow-answer { margin: 1rem; --citeflow-accent: rgb(0, 90, 60); }
citeflow-answer::part(chip) { background: rgb(255, 240, 200); }
"""


def host_app(gateway: str, key: str) -> Starlette:
    async def page(request: Request) -> HTMLResponse:
        ids = request.query_params.getlist("id")
        answers = "".join(f'<citeflow-answer answer-id="{html.escape(i)}" gateway="/citeflow">'
                          "</citeflow-answer>" for i in ids)
        body = ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
                '<title>host</title><link rel="stylesheet" href="/host.css">'
                f'<script src="{gateway}/static/component/v1/citeflow.js" defer></script>'
                f'</head><body><h1 class="answer">My product</h1>{answers}</body></html>')
        csp = (f"default-src 'none'; script-src {gateway}; style-src 'self'; "
               "connect-src 'self'; img-src blob:; base-uri 'none'; form-action 'none'")
        return HTMLResponse(body, headers={"Content-Security-Policy": csp})

    async def direct(request: Request) -> HTMLResponse:
        """The README's own page: the component calls the gateway itself, with the key from
        the fragment."""
        answer_id = html.escape(request.query_params.get("id", ""))
        body = ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>mine</title>'
                f'<script src="{gateway}/static/component/v1/citeflow.js" defer></script>'
                f'</head><body><citeflow-answer answer-id="{answer_id}" fragment-key>'
                "</citeflow-answer></body></html>")
        return HTMLResponse(body)

    async def css(request: Request) -> Response:
        return Response(HOST_CSS, media_type="text/css")

    client = httpx.AsyncClient(base_url=gateway, timeout=60)

    async def proxy(request: Request) -> Response:
        upstream = await client.get("/" + request.path_params["path"],
                                    params=request.query_params,
                                    headers={"Authorization": f"Bearer {key}"})
        return Response(upstream.content, upstream.status_code,
                        media_type=upstream.headers.get("content-type"))

    return Starlette(routes=[Route("/host.html", page), Route("/direct.html", direct),
                             Route("/host.css", css),
                             Route("/citeflow/{path:path}", proxy)])


@contextmanager
def host_site(gateway: str, key: str) -> Iterator[str]:
    with serving_host(host_app(gateway, key)) as url:
        yield url


@contextmanager
def serving_host(app: Starlette) -> Iterator[str]:
    """A host page's `app` on another origin than the gateway's until the block ends."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),),
                              daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        # `localhost`, not 127.0.0.1: another origin than the gateway's.
        yield f"http://localhost:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
