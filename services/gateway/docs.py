"""`/openapi.json`, the interactive docs at `/docs` (Swagger UI, vendored by `make vendor`,
served from here: no CDN) and the static files under `/static/`."""

from __future__ import annotations

from pathlib import Path

import orjson
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from services.gateway.context import gateway_of
from services.gateway.openapi import openapi_document
from services.gateway.problems import ProblemError

STATIC_DIR = Path(__file__).resolve().parent / "static"
APP_DIR = STATIC_DIR / "app"
VENDOR_DIR = STATIC_DIR / "node_modules"
# What /static/vendor/ serves: these files of the vendored packages and nothing else of
# node_modules (it once served all of it, `.package-lock.json` included). A page that
# needs another vendored file adds it here.
VENDOR_FILES: dict[str, str] = {
    "swagger-ui-dist/swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui-dist/swagger-ui.css": "text/css; charset=utf-8",
    "uplot/dist/uPlot.iife.min.js": "text/javascript; charset=utf-8",
    "uplot/dist/uPlot.min.css": "text/css; charset=utf-8",
}


async def openapi_json(request: Request) -> Response:
    document = openapi_document(gateway_of(request).settings.max_wait_s)
    return Response(orjson.dumps(document), media_type="application/json")


async def docs(request: Request) -> Response:
    if not (VENDOR_DIR / "swagger-ui-dist" / "swagger-ui-bundle.js").exists():
        raise ProblemError(503, "docs_not_installed",
                           "Swagger UI is not vendored here: run `make vendor`")
    return FileResponse(APP_DIR / "docs.html", media_type="text/html; charset=utf-8")


async def vendored(request: Request) -> Response:
    """One allow-listed file of the vendored packages; anything else is a 404."""
    name = request.path_params["path"]
    media_type = VENDOR_FILES.get(name)
    if media_type is None or not (VENDOR_DIR / name).is_file():
        raise ProblemError(404, "not_found", "no such static file")
    return FileResponse(VENDOR_DIR / name, media_type=media_type,
                        headers={"Cache-Control": "public, max-age=86400",
                                 "X-Content-Type-Options": "nosniff"})


def routes() -> list[BaseRoute]:
    return [
        Route("/openapi.json", openapi_json, methods=["GET"], name="openapi"),
        Route("/docs", docs, methods=["GET"], name="docs"),
        Mount("/static/app", StaticFiles(directory=APP_DIR), name="static_app"),
        Route("/static/vendor/{path:path}", vendored, methods=["GET", "HEAD"],
              name="static_vendor"),
    ]
