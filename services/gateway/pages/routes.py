"""`GET /answers/{answer_id}` and `GET /dashboard`: static HTML shells (no inline script or
style, so the gateway's strict CSP holds) whose scripts fetch their data from `/v1/` with the
key the URL fragment carries (`#key=...`: never sent to the server, kept in sessionStorage).
Their assets are served from `/static/reader/`; the viewer is the embeddable
`<citeflow-answer>` component, served at `/static/component/v1/` for host pages too."""

from __future__ import annotations

import html
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from services.gateway.pages import pipeline

STATIC = Path(__file__).resolve().parents[1] / "static"
ASSETS = STATIC / "reader"
# The component's stable, versioned path: a breaking change is a new /v2/ beside it.
COMPONENT = STATIC / "component"
_HEAD = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    '<meta name="referrer" content="no-referrer">'
    '<title>{title}</title><link rel="stylesheet" href="/static/reader/reader.css">'
    '<script src="/static/reader/common.js" defer></script>'
    '{vendor}<script src="{script}" defer></script></head>'
)
VIEWER_SCRIPTS = ('<link rel="stylesheet" href="/static/app/viewer.css">'
                  '<script src="/static/component/v1/citeflow.js" defer></script>')
# The dashboard's charts: uPlot, pinned in static/package.json, vendored by `make vendor`.
UPLOT = ('<link rel="stylesheet" href="/static/vendor/uplot/dist/uPlot.min.css">'
         '<script src="/static/vendor/uplot/dist/uPlot.iife.min.js" defer></script>')
_NAV = '<header class="bar"><h1>citeflow</h1><a href="/dashboard">dashboard</a></header>'


def _page(title: str, script: str, body: str, vendor: str = "") -> HTMLResponse:
    return HTMLResponse(
        _HEAD.format(title=html.escape(title), script=script, vendor=vendor)
        + "<body>" + _NAV + body + "</body></html>",
        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
    )


async def viewer(request: Request) -> HTMLResponse:
    answer_id = request.path_params["answer_id"]
    body = f'<main class="viewer-page" id="viewer" data-answer-id="{html.escape(answer_id)}"></main>'
    return _page(f"citeflow answer {answer_id}", "/static/app/viewer.js", body, VIEWER_SCRIPTS)


async def dashboard(request: Request) -> HTMLResponse:
    body = (
        '<main class="dashboard" id="dashboard">'
        '<section class="tile"><h2>Live results <span id="connection" role="status">'
        'connecting…</span></h2><ul id="feed" aria-live="polite"></ul></section>'
        '<section class="tile"><h2>Invalid-citation rate per model</h2>'
        '<div id="chart-invalid"></div></section>'
        '<section class="tile"><h2>Mean coverage per model</h2>'
        '<div id="chart-coverage"></div></section>'
        '<section class="tile"><h2>Citation support per model (recall, precision)</h2>'
        '<div id="chart-support"></div></section>'
        '<section class="tile"><h2>Answers per tenant</h2><div id="chart-tenants"></div>'
        '</section>'
        '<section class="tile"><h2>Answers and citation recall per language</h2>'
        '<div id="languages"></div></section>'
        '<section class="tile"><h2>Consumer lag per stage</h2><div id="lag"></div>'
        '</section>'
        '<section class="tile"><h2>Rejections and dead letters</h2><div id="health"></div>'
        '</section>'
        '</main>'
    )
    return _page("citeflow dashboard", "/static/reader/dashboard.js", body, UPLOT)


def routes() -> list[BaseRoute]:
    return [
        *pipeline.routes(),
        Route("/answers/{answer_id}", viewer, methods=["GET"], name="answer_viewer"),
        Route("/dashboard", dashboard, methods=["GET"], name="dashboard"),
        Mount("/static/reader", app=StaticFiles(directory=ASSETS), name="reader_assets"),
        Mount("/static/component", app=StaticFiles(directory=COMPONENT),
              name="component_assets"),
    ]
