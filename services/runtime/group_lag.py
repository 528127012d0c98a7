"""Pipeline health from the broker: per stage, the lag of every consumer group reading its
input topics and the dead letters still to be worked.

Groups are found on the broker, not assumed: a stage run under `CITEFLOW_GROUP_ID` (any
name) is measured under that name. A group belongs to the stage its name says
(`<prefix>citeflow-<stage>`), else to the stage whose input topics hold all the offsets it
committed (the smallest such set). A group with members is consuming. The stage's `lag`
is that of its consuming group furthest ahead: a stopped group's committed offsets stay
behind, and while Apache Kafka drops a stopped member at once, Tansu keeps listing it.
When no group consumes, the lag is the configured group's (the backlog a restarted stage
resumes with). Every group is listed with its own lag and members.

The judging stage (a model judge's second opinions) is listed once `answers.judged` holds
records, with `breaker`: its judge's circuit breaker as the newest `answer.judged` recorded
it (`open`: the judge is down and every citation keeps its lexical verdict).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import orjson
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from schemas.topics import ANSWERS_FORMATTED, ANSWERS_JUDGED, dlq_topic
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_admin, make_consumer
from services.runtime.topic_io import end_offsets
from services.runtime.worked import outstanding
from services.stages import SINK_NAMES, STAGE_NAMES, stage


@dataclass(frozen=True)
class GroupLag:
    """One consumer group's position on a stage's inputs."""

    group: str
    members: int
    lag: int
    committed: dict[TopicPartition, int]


def stage_inputs() -> dict[str, tuple[str, ...]]:
    """The logical input topics of every stage and sink, the judging stage's included (not
    imported: that would load and check its judge here)."""
    inputs = {name: stage(name).input_topics for name in STAGE_NAMES + SINK_NAMES}
    inputs["judging"] = (ANSWERS_FORMATTED,)
    return inputs


async def pipeline_health(config: RuntimeConfig) -> dict[str, Any]:
    """`{"stages": [...], "measured_at": ...}`, measured now (see the module docstring)."""
    async with _clients(config) as (consumer, admin):
        found = await _stage_groups(config, consumer, admin)
        inputs, parts = found.inputs, found.parts
        every = sorted({tp for tps in parts.values() for tp in tps})
        dlqs = [dlq_topic(t) for t in _unique(inputs.values())]
        dlq_parts = _partitions(config, consumer, found.known, tuple(dlqs))
        ends = await end_offsets(config, sorted({*every, *dlq_parts}))
        # Only topics holding records are read for their letters (usually none).
        dead = await outstanding(config, sorted({config.logical(tp.topic) for tp in dlq_parts
                                                 if ends[tp] > 0}))
        stages = []
        for name, topics in inputs.items():
            measured = [_lag(group, parts[name], ends) for group in found.owned.get(name, [])]
            consuming = [g for g in measured if g.members]
            configured = config.group_for(name)
            main = (min(consuming, key=lambda g: g.lag) if consuming else next(
                (g for g in measured if g.group == configured),
                _lag((configured, 0, {}), parts[name], ends)))
            health: dict[str, Any] = {
                "stage": name, "group": main.group, "topics": list(topics),
                "lag": main.lag, "partitions": len(parts[name]),
                "consuming": bool(consuming),
                "groups": [{"group": g.group, "members": g.members, "lag": g.lag}
                           for g in sorted(measured, key=lambda g: g.group)],
                "dead_letters": dead.get(name, 0),
            }
            if name == "judging":
                health["breaker"] = await _newest_breaker(consumer, found.judged_ends)
            stages.append(health)
        return {"stages": stages, "measured_at": time.time()}


async def stage_group(config: RuntimeConfig, name: str) -> str:
    """The consumer group consuming for stage `name` now, found as `pipeline_health` finds
    it (the one furthest ahead when several have members), else the configured name."""
    async with _clients(config) as (consumer, admin):
        found = await _stage_groups(config, consumer, admin)
    consuming = [group for group in found.owned.get(name, []) if group[1]]
    if not consuming:
        return config.group_for(name)
    return max(consuming, key=lambda group: sum(group[2].values()))[0]


@asynccontextmanager
async def _clients(config: RuntimeConfig) -> AsyncIterator[
        tuple[AIOKafkaConsumer, AIOKafkaAdminClient]]:
    """A consumer outside any group and an admin client, started, stopped after."""
    consumer = make_consumer(config, group_id=None)
    admin = make_admin(config)
    await consumer.start()
    try:
        await admin.start()
        yield consumer, admin
    finally:
        await consumer.stop()
        await admin.close()


@dataclass(frozen=True)
class _StageGroups:
    """The stages' inputs on the broker and the groups consuming them."""

    inputs: dict[str, tuple[str, ...]]
    known: set[str]
    parts: dict[str, list[TopicPartition]]
    owned: dict[str, list[tuple[str, int, dict[TopicPartition, int]]]]
    judged_ends: dict[TopicPartition, int]


async def _stage_groups(config: RuntimeConfig, consumer: AIOKafkaConsumer,
                        admin: AIOKafkaAdminClient) -> _StageGroups:
    """Every stage's input partitions and the groups that committed on them, each under
    the stage it consumes for (`_attribute`)."""
    inputs = stage_inputs()
    known = await consumer.topics()
    judged = _partitions(config, consumer, known, (ANSWERS_JUDGED,))
    judged_ends = await end_offsets(config, judged) if judged else {}
    if not any(judged_ends.values()):
        del inputs["judging"]  # no model judge has run: not a stage of this pipeline
    parts = {name: _partitions(config, consumer, known, topics)
             for name, topics in inputs.items()}
    every = sorted({tp for tps in parts.values() for tp in tps})
    groups = await committed_groups(admin, every)
    owned = _attribute(config, groups, {n: {tp.topic for tp in tps} for n, tps in parts.items()})
    return _StageGroups(inputs, known, parts, owned, judged_ends)


async def _newest_breaker(consumer: AIOKafkaConsumer,
                          ends: dict[TopicPartition, int]) -> str | None:
    """The `breaker` of the newest `answer.judged` (by record time) over the partitions."""
    filled = [tp for tp, end in ends.items() if end > 0]
    consumer.assign(filled)
    newest: tuple[int, str | None] = (-1, None)
    for tp in filled:
        consumer.seek(tp, ends[tp] - 1)
    records = await consumer.getmany(*filled, timeout_ms=2500)
    for batch in records.values():
        for record in batch:
            try:
                state = orjson.loads(record.value or b"{}").get("data", {}).get("breaker")
            except (orjson.JSONDecodeError, AttributeError):
                continue  # not a readable event: says nothing about the breaker
            if record.timestamp > newest[0]:
                newest = (record.timestamp, state)
    return newest[1]


def _unique(groups: Iterable[tuple[str, ...]]) -> list[str]:
    return sorted({t for topics in groups for t in topics})


def _partitions(config: RuntimeConfig, consumer: AIOKafkaConsumer, known: set[str],
                topics: tuple[str, ...]) -> list[TopicPartition]:
    found = []
    for topic in topics:
        physical = config.physical(topic)
        if physical in known:
            found += [TopicPartition(physical, p)
                      for p in sorted(consumer.partitions_for_topic(physical) or ())]
    return found


async def committed_groups(admin: AIOKafkaAdminClient, partitions: list[TopicPartition]) -> list[
    tuple[str, int, dict[TopicPartition, int]]
]:
    """(group, members, committed offsets on `partitions`) of every consumer group that
    committed on at least one of them."""
    if not partitions:
        return []
    names = [name for name, protocol in await admin.list_consumer_groups()
             if protocol in ("consumer", "")]
    found = []
    for name in names:
        # Partitions named: Tansu cannot answer "every partition of the group".
        offsets = await admin.list_consumer_group_offsets(name, partitions=partitions)
        committed = {tp: meta.offset for tp, meta in offsets.items() if meta.offset >= 0}
        if not committed:
            continue
        described = await admin.describe_consumer_groups([name])
        members = sum(len(g[5]) for response in described for g in response.groups
                      if g[1] == name)
        found.append((name, members, committed))
    return found


def _attribute(config: RuntimeConfig,
               groups: list[tuple[str, int, dict[TopicPartition, int]]],
               topics: dict[str, set[str]]) -> dict[str, list[tuple[str, int, dict[
                   TopicPartition, int]]]]:
    """Each group under the stage it consumes for (by name, else by its committed topics)."""
    owned: dict[str, list[tuple[str, int, dict[TopicPartition, int]]]] = {}
    by_name = {f"{config.topic_prefix}citeflow-{name}": name for name in topics}
    for group in groups:
        name = by_name.get(group[0])
        if name is None:
            used = {tp.topic for tp in group[2]}
            fitting = [n for n, inputs in topics.items() if used <= inputs]
            name = min(fitting, key=lambda n: len(topics[n])) if fitting else None
        if name is not None:
            owned.setdefault(name, []).append(group)
    return owned


def _lag(group: tuple[str, int, dict[TopicPartition, int]], partitions: list[TopicPartition],
         ends: dict[TopicPartition, int]) -> GroupLag:
    name, members, committed = group
    lag = sum(max(0, ends[tp] - committed.get(tp, 0)) for tp in partitions)
    return GroupLag(name, members, lag, committed)
