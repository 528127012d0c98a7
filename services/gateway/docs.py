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


async def openapi_json(request: Request) -> Response:
    document = openapi_document(gateway_of(request).settings.max_wait_s)
    return Response(orjson.dumps(document), media_type="application/json")


async def docs(request: Request) -> Response:
    if not (VENDOR_DIR / "swagger-ui-dist" / "swagger-ui-bundle.js").exists():
        raise ProblemError(503, "docs_not_installed",
                           "Swagger UI is not vendored here: run `make vendor`")
    return FileResponse(APP_DIR / "docs.html", media_type="text/html; charset=utf-8")


def routes() -> list[BaseRoute]:
    return [
        Route("/openapi.json", openapi_json, methods=["GET"], name="openapi"),
        Route("/docs", docs, methods=["GET"], name="docs"),
        Mount("/static/app", StaticFiles(directory=APP_DIR), name="static_app"),
        Mount("/static/vendor", StaticFiles(directory=VENDOR_DIR, check_dir=False),
              name="static_vendor"),
    ]
