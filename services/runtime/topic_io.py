"""Operator tools' Kafka I/O: read a bounded range of a topic, publish a list of records."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition
from aiokafka.errors import KafkaTimeoutError

from services.runtime.config import RuntimeConfig
from services.runtime.dead_letters import Record
from services.runtime.kafka import make_consumer, make_producer


END_OFFSETS_TIMEOUT_S = 30.0  # a partition without a leader: an error, not a hang


@dataclass(frozen=True)
class Range:
    """Which records of a topic to read: optional partition and [start, end) offsets."""

    partition: int | None = None
    start: int | None = None
    end: int | None = None


async def partitions_of(consumer: AIOKafkaConsumer, topic: str) -> list[TopicPartition]:
    """The partitions of `topic` (LookupError when it does not exist)."""
    found = consumer.partitions_for_topic(topic)
    if not found:
        await consumer.topics()
        found = consumer.partitions_for_topic(topic)
    if not found:
        raise LookupError(f"topic {topic!r} does not exist")
    return [TopicPartition(topic, p) for p in sorted(found)]


async def read_range(
    config: RuntimeConfig, topic: str, where: Range | None = None
) -> AsyncIterator[ConsumerRecord]:
    """Records of `topic` in `where`, up to the high watermark seen while reading.

    The end is taken from fetch responses, not ListOffsets: Tansu answers ListOffsets
    (latest) with the last batch's base offset + 1, which would cut batches short.
    """
    where = where or Range()
    consumer = make_consumer(config, group_id=None)
    await consumer.start()
    try:
        tps = await partitions_of(consumer, topic)
        if where.partition is not None:
            tps = [tp for tp in tps if tp.partition == where.partition]
            if not tps:
                raise LookupError(f"topic {topic!r} has no partition {where.partition}")
        consumer.assign(tps)
        begins = await consumer.beginning_offsets(tps)
        for tp in tps:
            consumer.seek(tp, max(begins[tp], where.start or 0))
        active = set(tps)
        while active:
            batches = await consumer.getmany(*active, timeout_ms=200)
            for records in batches.values():
                for record in records:
                    if where.end is None or record.offset < where.end:
                        yield record
            for tp in list(active):
                if await caught_up(consumer, tp, where.end):
                    active.discard(tp)
                    consumer.pause(tp)
    finally:
        await consumer.stop()


async def end_offsets(config: RuntimeConfig, tps: list[TopicPartition]) -> dict[
    TopicPartition, int
]:
    """The end offset (high watermark) of each partition, from fetch responses.

    ListOffsets is only the starting point: Tansu answers it with the last batch's base
    offset + 1, short of the end by the rest of that batch, so a fetch from there reads the
    high watermark the broker really has.
    """
    tps = list(dict.fromkeys(tps))
    if not tps:
        return {}
    consumer = make_consumer(config, group_id=None)
    await consumer.start()
    try:
        consumer.assign(tps)
        listed = await consumer.end_offsets(tps)
        for tp in tps:
            consumer.seek(tp, listed[tp])
        ends: dict[TopicPartition, int] = {}
        deadline = time.monotonic() + END_OFFSETS_TIMEOUT_S
        while len(ends) < len(tps):
            if time.monotonic() > deadline:
                missing = ", ".join(f"{tp.topic}:{tp.partition}" for tp in tps if tp not in ends)
                raise KafkaTimeoutError(f"no fetch response for {missing}")
            await consumer.getmany(*[tp for tp in tps if tp not in ends], timeout_ms=100)
            for tp in tps:
                high = consumer.highwater(tp)
                if high is not None:
                    ends[tp] = high
                    consumer.pause(tp)
        return ends
    finally:
        await consumer.stop()


async def caught_up(consumer: AIOKafkaConsumer, tp: TopicPartition, end: int | None) -> bool:
    """Whether the consumer's position reached the high watermark (or `end`) of `tp`."""
    high = consumer.highwater(tp)
    if high is None:
        return False
    position = await consumer.position(tp)
    return position >= (high if end is None else min(high, end))


async def publish(config: RuntimeConfig, records: Iterable[Record]) -> int:
    """Produce records (topics are logical names) and wait for every acknowledgement."""
    producer = make_producer(config)
    await producer.start()
    try:
        return await publish_with(producer, config, records)
    finally:
        await producer.stop()


async def publish_with(
    producer: AIOKafkaProducer, config: RuntimeConfig, records: Iterable[Record]
) -> int:
    """Send all records through an open producer, then wait for all deliveries."""
    futures: list[asyncio.Future[Any]] = []
    for record in records:
        futures.append(
            await producer.send(
                config.physical(record.topic), record.value, key=record.key,
                headers=record.headers,
            )
        )
    await asyncio.gather(*futures)
    return len(futures)
