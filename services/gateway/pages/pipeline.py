"""`GET /v1/pipeline`: the dashboard's pipeline health, surfaced by the gateway.

Per stage (the five pipeline stages and the results-store sink): the lag of every consumer
group reading its inputs, from the broker (services.runtime.group_lag), and how many of its
dead letters are still to be worked. Measured at most every few seconds, whatever the number
of dashboards. Scope `ops`; served while the results store is down.
"""

from __future__ import annotations

import asyncio
import time
from typing import cast

import orjson
from aiokafka.errors import KafkaError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from services.gateway.context import authorize, gateway_of
from services.gateway.documents.responses import PipelineHealth
from services.gateway.problems import unavailable
from services.runtime.config import RuntimeConfig
from services.runtime.group_lag import pipeline_health

CACHE_SECONDS = 5.0
TIMEOUT_SECONDS = 5.0


class PipelineProbe:
    """Consumer lag and dead-letter counts of every stage, cached for a few seconds."""

    def __init__(self, config: RuntimeConfig) -> None:
        self.config = config
        self._cached: tuple[float, PipelineHealth] | None = None
        self._lock = asyncio.Lock()

    async def health(self) -> PipelineHealth:
        async with self._lock:
            if self._cached is None or time.monotonic() - self._cached[0] > CACHE_SECONDS:
                measured = await asyncio.wait_for(pipeline_health(self.config), TIMEOUT_SECONDS)
                self._cached = (time.monotonic(), cast(PipelineHealth, measured))
            return self._cached[1]


async def pipeline(request: Request) -> Response:
    await authorize(request, "ops")  # global lag and dead letters: not a tenant's to read
    gateway = gateway_of(request)
    probe = getattr(request.app.state, "pipeline_probe", None)
    if probe is None:
        probe = request.app.state.pipeline_probe = PipelineProbe(gateway.settings.runtime)
    try:
        health = await probe.health()
    except (KafkaError, OSError, TimeoutError):
        raise unavailable("broker", gateway.settings.retry_after_s) from None
    return Response(orjson.dumps(health), media_type="application/json",
                    headers={"Cache-Control": "no-store"})


def routes() -> list[Route]:
    return [Route("/v1/pipeline", pipeline, methods=["GET"], name="pipeline_health")]
