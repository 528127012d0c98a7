"""`GET /`, `GET /answers/{answer_id}` and `GET /dashboard`: static HTML shells (no inline script or
style, so the gateway's strict CSP holds) whose scripts fetch their data from `/v1/` with the
key the URL fragment carries (`#key=...`: never sent to the server, kept in sessionStorage).
Their assets are served from `/static/reader/`; the viewer is the embeddable
`<citeflow-answer>` component, served at `/static/component/v1/` for host pages too."""

from __future__ import annotations

import html
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
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
# Every page loads the component: the viewer is it, the others use its text helpers.
COMPONENT_SCRIPT = '<script src="/static/component/v1/citeflow.js" defer></script>'
VIEWER_SCRIPTS = '<link rel="stylesheet" href="/static/app/viewer.css">' + COMPONENT_SCRIPT
# The dashboard's charts: uPlot, pinned in static/package.json, vendored by `make vendor`.
UPLOT = ('<link rel="stylesheet" href="/static/vendor/uplot/dist/uPlot.min.css">'
         '<script src="/static/vendor/uplot/dist/uPlot.iife.min.js" defer></script>')
_NAV = ('<header class="bar"><h1><a href="/">citeflow</a></h1><a href="/">answers</a>'
        '<a href="/dashboard">dashboard</a><a href="/docs">API docs</a></header>')
# What `/` links to (the page, or the JSON a client that asks for JSON gets).
HOME_LINKS = {"answers": "/v1/answers", "dashboard": "/dashboard", "api_docs": "/docs",
              "openapi": "/openapi.json", "viewer": "/answers/{answer_id}"}


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
        '<form class="filters" id="filters" aria-label="Filters">'
        '<label>Model <select name="model"><option value="">all</option></select></label>'
        '<label>Tenant <select name="tenant"><option value="">all</option></select></label>'
        '<label>Language <select name="language"><option value="">all</option></select>'
        '</label><label>Period <select name="window"><option value="6h">6 hours</option>'
        '<option value="24h">24 hours</option><option value="7d">7 days</option></select>'
        '</label></form>'
        '<section class="tile wide"><h2>Citation quality now and in the previous period'
        '</h2><div id="headline"></div></section>'
        '<section class="tile wide"><h2>Worst recent answers</h2>'
        '<ol id="worst" class="worst"></ol></section>'
        '<section class="tile"><h2>Supported citations per model</h2>'
        '<div id="chart-support"></div></section>'
        '<section class="tile"><h2>Invalid-citation rate per model</h2>'
        '<div id="chart-invalid"></div></section>'
        '<section class="tile"><h2>Mean coverage per model</h2>'
        '<div id="chart-coverage"></div></section>'
        '<section class="tile"><h2>Answers per tenant</h2><div id="chart-tenants"></div>'
        '</section>'
        '<section class="tile"><h2>Answers and support per language</h2>'
        '<div id="languages"></div></section>'
        '<section class="tile"><h2>Rejections and dead letters</h2><div id="health"></div>'
        '</section>'
        '<section class="tile"><h2>Live results <span id="connection" role="status">'
        'connecting…</span></h2><ul id="feed" aria-live="polite"></ul></section>'
        '<section class="tile"><h2>Consumer lag per stage</h2><div id="lag"></div>'
        '</section>'
        '</main>'
    )
    return _page("citeflow dashboard", "/static/reader/dashboard.js", body,
                 UPLOT + COMPONENT_SCRIPT)


def _wants_json(request: Request) -> bool:
    """A client that asks for JSON and not HTML (a browser's Accept names text/html)."""
    accept = request.headers.get("accept", "")
    return "json" in accept and "text/html" not in accept


async def home(request: Request) -> Response:
    """The gateway's front page: the latest answers (each opening its viewer), the
    dashboard and the API docs; JSON clients get the same links as JSON."""
    if _wants_json(request):
        return JSONResponse({"name": "citeflow gateway", "links": HOME_LINKS},
                            headers={"Vary": "Accept"})
    body = (
        '<main class="home" id="home">'
        '<section class="tile"><h2>citeflow checks the citations of LLM answers</h2><ul>'
        '<li><a href="/dashboard">Dashboard</a>: citation quality per model, the worst '
        'recent answers, pipeline health</li>'
        '<li><a href="/docs">API docs</a> (<a href="/openapi.json">OpenAPI</a>)</li>'
        '</ul></section>'
        '<section class="tile"><h2>Latest answers</h2>'
        '<p id="home-key" class="hint" hidden>Pages read with an API key: open this page as '
        '<code>/#key=&lt;your key&gt;</code> (the key stays in the browser tab; it is never '
        'sent in a URL).</p><ul id="answers" class="answer-list"></ul></section>'
        '</main>'
    )
    response = _page("citeflow", "/static/reader/home.js", body, COMPONENT_SCRIPT)
    response.headers["Vary"] = "Accept"
    return response


def routes() -> list[BaseRoute]:
    return [
        *pipeline.routes(),
        Route("/", home, methods=["GET"], name="home"),
        Route("/answers/{answer_id}", viewer, methods=["GET"], name="answer_viewer"),
        Route("/dashboard", dashboard, methods=["GET"], name="dashboard"),
        Mount("/static/reader", app=StaticFiles(directory=ASSETS), name="reader_assets"),
        Mount("/static/component", app=StaticFiles(directory=COMPONENT),
              name="component_assets"),
    ]
