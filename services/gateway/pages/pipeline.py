"""`GET /v1/pipeline`: the dashboard's pipeline health, surfaced by the gateway.

Per stage (the five pipeline stages and the results-store sink): its consumer group's lag
(the input partitions' end offsets minus the group's committed offsets, from the broker: the
numbers each stage's own `citeflow_consumer_lag` gauge reports, without needing to know
where each stage process serves its metrics) and how many records its dead-letter topics
hold. Measured at most every few seconds, whatever the number of dashboards. Scope `read`.

The judging stage (a model judge's second opinions) is listed once `answers.judged` holds
records, with `breaker`: its judge's circuit breaker as the newest `answer.judged` recorded
it (`open`: the judge is down and every citation keeps its lexical verdict).
"""

from __future__ import annotations

import asyncio
import time

import orjson
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from schemas.topics import ANSWERS_FORMATTED, ANSWERS_JUDGED, dlq_topic
from services.gateway.context import authorize, gateway_of
from services.gateway.documents.responses import PipelineHealth, StageHealth
from services.gateway.problems import unavailable
from services.runtime.config import RuntimeConfig
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
        # Not imported (that would load and check its judge here): its input topic alone.
        self._inputs["judging"] = (ANSWERS_FORMATTED,)

    async def health(self) -> PipelineHealth:
        async with self._lock:
            if self._cached is None or time.monotonic() - self._cached[0] > CACHE_SECONDS:
                measured = await asyncio.wait_for(self._measure(), TIMEOUT_SECONDS)
                self._cached = (time.monotonic(), measured)
            return self._cached[1]

    async def _measure(self) -> PipelineHealth:
        consumer = AIOKafkaConsumer(bootstrap_servers=self.config.bootstrap_servers,
                                    enable_auto_commit=False)
        admin = AIOKafkaAdminClient(bootstrap_servers=self.config.bootstrap_servers)
        await consumer.start()
        try:
            await admin.start()
            known = await consumer.topics()
            stages: list[StageHealth] = []
            judged = self._partitions(consumer, known, (ANSWERS_JUDGED,))
            judged_ends = await consumer.end_offsets(judged) if judged else {}
            for name, topics in self._inputs.items():
                if name == "judging" and not any(judged_ends.values()):
                    continue  # no model judge has run: not a stage of this pipeline
                inputs = self._partitions(consumer, known, topics)
                dead = self._partitions(consumer, known, tuple(dlq_topic(t) for t in topics))
                ends = await consumer.end_offsets(inputs + dead) if inputs + dead else {}
                committed = (await admin.list_consumer_group_offsets(
                    self.config.group_for(name), partitions=inputs)) if inputs else {}
                lag = 0
                for tp in inputs:
                    done = committed.get(tp)
                    lag += max(0, ends[tp] - (done.offset if done and done.offset >= 0 else 0))
                health: StageHealth = {
                    "stage": name, "group": self.config.group_for(name), "topics": list(topics),
                    "lag": lag, "partitions": len(inputs),
                    "dead_letters": sum(ends[tp] for tp in dead)}
                if name == "judging":
                    health["breaker"] = await _newest_breaker(consumer, judged_ends)
                stages.append(health)
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


async def _newest_breaker(consumer: AIOKafkaConsumer,
                          ends: dict[TopicPartition, int]) -> str | None:
    """The `breaker` of the newest `answer.judged` (by record time) over the partitions."""
    filled = [tp for tp, end in ends.items() if end > 0]
    consumer.assign(filled)
    newest: tuple[int, str | None] = (-1, None)
    for tp in filled:
        consumer.seek(tp, ends[tp] - 1)
    records = await consumer.getmany(*filled, timeout_ms=int(TIMEOUT_SECONDS * 500))
    for batch in records.values():
        for record in batch:
            try:
                state = orjson.loads(record.value or b"{}").get("data", {}).get("breaker")
            except (orjson.JSONDecodeError, AttributeError):
                continue  # not a readable event: says nothing about the breaker
            if record.timestamp > newest[0]:
                newest = (record.timestamp, state)
    return newest[1]


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
