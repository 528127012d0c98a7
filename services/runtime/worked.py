"""Which dead letters are still to be worked.

Working a letter (re-driving it, or purging it) appends a marker to the letter's own
partition: a record with the letter's key, an empty value and the headers `dlq_worked`
(the letter's offset) and `dlq_outcome`. The markers live and expire with the letters,
need no topic of their own and are read by every operator command and `/v1/pipeline`; a
letter with a marker is no longer listed or counted.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiokafka import ConsumerRecord

from services.runtime.config import RuntimeConfig
from services.runtime.dead_letters import (
    H_OUTCOME,
    H_WORKED,
    DeadLetterInfo,
    is_marker,
    read_dead_letter,
)
from services.runtime.kafka import make_producer
from services.runtime.topic_io import Range, read_range

REDRIVEN = "redriven"
PURGED = "purged"


@dataclass(frozen=True)
class Letter:
    """A dead letter still to be worked: its record and its parsed headers."""

    topic: str  # logical
    record: ConsumerRecord
    info: DeadLetterInfo

    @property
    def id(self) -> str:
        """`topic:partition:offset`, how an operator names one letter."""
        return f"{self.topic}:{self.record.partition}:{self.record.offset}"


async def mark(config: RuntimeConfig, worked: list[Letter], outcome: str) -> None:
    """Append a marker for each letter to its partition; returns once all are stored."""
    producer = make_producer(config)
    await producer.start()
    try:
        futures = [await producer.send(
            config.physical(letter.topic), b"", key=letter.record.key,
            partition=letter.record.partition,
            headers=[(H_WORKED, str(letter.record.offset).encode()),
                     (H_OUTCOME, outcome.encode())]) for letter in worked]
        await asyncio.gather(*futures)
    finally:
        await producer.stop()


async def letters(config: RuntimeConfig, topic: str, where: Range | None = None) -> list[
    Letter
]:
    """The letters of a dead-letter topic (logical name) in `where` without a marker,
    oldest first (markers are read past the range's end: they follow their letters)."""
    where = where or Range()
    found: dict[tuple[int, int], Letter] = {}
    worked: set[tuple[int, int]] = set()
    async for record in read_range(config, config.physical(topic), Range(where.partition)):
        headers = list(record.headers or ())
        if is_marker(headers):
            worked.add((record.partition, int(dict(headers)[H_WORKED])))
            continue
        info = read_dead_letter(headers)
        in_range = ((where.start is None or record.offset >= where.start)
                    and (where.end is None or record.offset < where.end))
        if info is not None and in_range:
            found[(record.partition, record.offset)] = Letter(topic, record, info)
    return [letter for position, letter in sorted(found.items()) if position not in worked]


async def outstanding(config: RuntimeConfig, topics: list[str]) -> dict[str, int]:
    """How many letters still to be worked each stage has, over `topics` (logical names of
    dead-letter topics; one that does not exist holds none)."""
    counts: dict[str, int] = {}
    for topic in topics:
        try:
            found = await letters(config, topic)
        except LookupError:
            continue  # no such topic: nothing dead-lettered there
        for letter in found:
            counts[letter.info.stage] = counts.get(letter.info.stage, 0) + 1
    return counts
