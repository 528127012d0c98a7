"""`GET /v1/pipeline`: the dashboard's pipeline health, surfaced by the gateway.

Per stage (the five pipeline stages and the results-store sink): its consumer group's lag
(the input partitions' end offsets minus the group's committed offsets, from the broker: the
numbers each stage's own `citeflow_consumer_lag` gauge reports, without needing to know
where each stage process serves its metrics) and how many records its dead-letter topics
hold. Measured at most every few seconds, whatever the number of dashboards. Scope `read`.
"""

from __future__ import annotations

import asyncio
import time

import orjson
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import KafkaError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from schemas.topics import dlq_topic
from services.gateway.context import authorize, gateway_of
from services.gateway.documents.responses import PipelineHealth, StageHealth
from services.gateway.problems import unavailable
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_admin, make_consumer
from services.stages import SINK_NAMES, STAGE_NAMES, stage

CACHE_SECONDS = 5.0
TIMEOUT_SECONDS = 5.0


class PipelineProbe:
    """Consumer lag and dead-letter counts of every stage, cached for a few seconds."""

    def __init__(self, config: RuntimeConfig) -> None:
        self.config = config
        self._cached: tuple[float, PipelineHealth] | None = None
        self._lock = asyncio.Lock()
        self._inputs = {name: stage(name).input_topics for name in STAGE_NAMES + SINK_NAMES}

    async def health(self) -> PipelineHealth:
        async with self._lock:
            if self._cached is None or time.monotonic() - self._cached[0] > CACHE_SECONDS:
                measured = await asyncio.wait_for(self._measure(), TIMEOUT_SECONDS)
                self._cached = (time.monotonic(), measured)
            return self._cached[1]

    async def _measure(self) -> PipelineHealth:
        consumer = make_consumer(self.config, group_id=None)
        admin = make_admin(self.config)
        await consumer.start()
        try:
            await admin.start()
            known = await consumer.topics()
            stages: list[StageHealth] = []
            for name, topics in self._inputs.items():
                inputs = self._partitions(consumer, known, topics)
                dead = self._partitions(consumer, known, tuple(dlq_topic(t) for t in topics))
                ends = await consumer.end_offsets(inputs + dead) if inputs + dead else {}
                committed = (await admin.list_consumer_group_offsets(
                    self.config.group_for(name), partitions=inputs)) if inputs else {}
                lag = 0
                for tp in inputs:
                    done = committed.get(tp)
                    lag += max(0, ends[tp] - (done.offset if done and done.offset >= 0 else 0))
                stages.append({"stage": name, "group": self.config.group_for(name),
                               "topics": list(topics), "lag": lag, "partitions": len(inputs),
                               "dead_letters": sum(ends[tp] for tp in dead)})
            return {"stages": stages, "measured_at": time.time()}
        finally:
            await consumer.stop()
            await admin.close()

    def _partitions(self, consumer: AIOKafkaConsumer, known: set[str],
                    topics: tuple[str, ...]) -> list[TopicPartition]:
        found = []
        for topic in topics:
            physical = self.config.physical(topic)
            if physical in known:
                found += [TopicPartition(physical, p)
                          for p in sorted(consumer.partitions_for_topic(physical) or ())]
        return found


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
