"""Working dead letters: select them, re-drive them to the topic they came from and learn
which still fail, or purge them.

A re-driven letter gets a `redriven` marker once its copy is on the original topic; the
drain then waits (bounded) until the stage's consumer group committed past each copy and
reads the dead-letter topic again: a new letter made from a copy means that letter still
fails (it is the one still to be worked now, so the count does not grow). Copies not
consumed within the wait are reported as pending.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from aiokafka import TopicPartition

from services.runtime.config import RuntimeConfig
from services.runtime.group_lag import committed_groups
from services.runtime.kafka import make_admin, make_producer
from services.runtime.worked import PURGED, REDRIVEN, Letter, letters, mark

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LetterFilter:
    """Which letters a command works on: by id, and/or by stage, error code, key; `all`
    selects every letter (an empty filter selects none, so nothing is worked by mistake)."""

    ids: frozenset[str] = frozenset()
    stage: str | None = None
    error_code: str | None = None
    key: str | None = None
    all: bool = False

    @property
    def empty(self) -> bool:
        return not (self.ids or self.stage or self.error_code or self.key or self.all)

    def __call__(self, letter: Letter) -> bool:
        if self.empty:
            return False
        key = (letter.record.key or b"").decode("utf-8", "replace")
        return ((not self.ids or letter.id in self.ids)
                and (self.stage is None or letter.info.stage == self.stage)
                and (self.error_code is None or letter.info.error_code == self.error_code)
                and (self.key is None or key == self.key))


@dataclass
class DrainReport:
    """What a drain did (or, dry, would do)."""

    selected: list[Letter] = field(default_factory=list)
    skipped: int = 0
    redriven: int = 0
    still_failing: list[str] = field(default_factory=list)  # ids of the new letters
    pending: int = 0


async def select(config: RuntimeConfig, topics: list[str], chosen: LetterFilter) -> tuple[
    list[Letter], int
]:
    """The letters still to be worked in `topics` that `chosen` selects, and how many
    others there are (skipped)."""
    picked: list[Letter] = []
    skipped = 0
    for topic in topics:
        for letter in await letters(config, topic):
            if chosen(letter):
                picked.append(letter)
            else:
                skipped += 1
    return picked, skipped


async def drain(config: RuntimeConfig, topics: list[str], chosen: LetterFilter, *,
                dry_run: bool = False, wait_s: float = 60.0,
                progress: Progress | None = None) -> DrainReport:
    """Re-drive the selected letters (see the module docstring)."""
    picked, skipped = await select(config, topics, chosen)
    report = DrainReport(picked, skipped)
    if dry_run or not picked:
        return report
    copies: dict[tuple[str, int, int], Letter] = {}  # (physical topic, partition, offset)
    producer = make_producer(config)
    await producer.start()
    try:
        for done, letter in enumerate(picked, 1):
            headers = [(k, v) for k, v in letter.record.headers or ()
                       if not k.startswith("dlq_")]
            sent = await (await producer.send(
                config.physical(letter.info.original_topic), letter.record.value or b"",
                key=letter.record.key, headers=headers))
            copies[(sent.topic, sent.partition, sent.offset)] = letter
            if progress is not None:
                progress(done, len(picked))
    finally:
        await producer.stop()
    # Marked only after every copy was acknowledged: a crash before re-drives again.
    await mark(config, picked, REDRIVEN)
    report.redriven = len(picked)
    consumed = await _wait_consumed(config, picked, copies, wait_s)
    report.pending = len(copies) - len(consumed)
    for topic in topics:
        for letter in await letters(config, topic):
            origin = (config.physical(letter.info.original_topic),
                      letter.info.original_partition, letter.info.original_offset)
            if origin in copies:
                report.still_failing.append(letter.id)
    return report


async def purge(config: RuntimeConfig, picked: list[Letter]) -> int:
    """Mark the letters worked without re-driving them."""
    await mark(config, picked, PURGED)
    return len(picked)


async def _wait_consumed(config: RuntimeConfig, picked: list[Letter],
                         copies: dict[tuple[str, int, int], Letter],
                         wait_s: float) -> set[tuple[str, int, int]]:
    """The copies the failing stages' groups committed past, waiting up to `wait_s`.

    A copy counts as consumed once the group named for its letter's stage (the runtime's
    naming, `CITEFLOW_GROUP_ID` honoured) committed past it; with no such group, once
    every group that committed on its partition did (the slowest decides).
    """
    stages = {letter.info.stage for letter in picked}
    named = {config.group_for(stage) for stage in stages}
    partitions = sorted({TopicPartition(topic, p) for topic, p, _ in copies})
    admin = make_admin(config)
    await admin.start()
    deadline = time.monotonic() + wait_s
    try:
        while True:
            committed = {name: offsets for name, _, offsets
                         in await committed_groups(admin, partitions)}
            consumed = set()
            for position, letter in copies.items():
                tp = TopicPartition(position[0], position[1])
                own = config.group_for(letter.info.stage)
                deciding = ([committed[own]] if own in committed
                            else [c for n, c in committed.items() if n not in named])
                if deciding and all(c.get(tp, 0) > position[2] for c in deciding):
                    consumed.add(position)
            if len(consumed) == len(copies) or time.monotonic() >= deadline:
                return consumed
            await asyncio.sleep(0.5)
    finally:
        await admin.close()
