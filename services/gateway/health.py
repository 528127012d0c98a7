"""`/healthz` (the process serves), `/readyz` (broker and store reachable, stream hub
running) and Prometheus `/metrics` (scope `ops`)."""

from __future__ import annotations

import asyncio

import orjson
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from services.gateway.context import authorize, gateway_of
from services.store.api import StoreUnavailable

_PROBE_TIMEOUT_S = 2.0


async def healthz(request: Request) -> Response:
    return Response(b'{"status":"ok"}', media_type="application/json")


async def _store_ok(request: Request) -> bool:
    try:
        await asyncio.wait_for(gateway_of(request).store.ping(), _PROBE_TIMEOUT_S)
    except (StoreUnavailable, TimeoutError):
        return False
    return True


async def readyz(request: Request) -> Response:
    """200 when every dependency answers, else 503 naming the ones that do not."""
    gateway = gateway_of(request)
    broker, store = await asyncio.gather(gateway.producer.ready(), _store_ok(request))
    checks = {"broker": broker, "store": store, "stream": gateway.hub.ready()}
    ready = all(checks.values())
    headers = {} if ready else {"Retry-After": str(gateway.settings.retry_after_s)}
    return Response(orjson.dumps({"ready": ready, "checks": checks}), 200 if ready else 503,
                    headers, media_type="application/json")


async def metrics(request: Request) -> Response:
    """Prometheus metrics: process-wide figures, for keys with the `ops` scope only (a
    scraper sends its key as a bearer token)."""
    await authorize(request, "ops", cost=0)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})


def routes() -> list[Route]:
    return [
        Route("/healthz", healthz, methods=["GET"], name="healthz"),
        Route("/readyz", readyz, methods=["GET"], name="readyz"),
        Route("/metrics", metrics, methods=["GET"], name="metrics"),
    ]
