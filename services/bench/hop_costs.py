"""Where a hop's CPU goes, at the real event sizes: `bench e2e` prints it beside each hop's
measured CPU and the raw pass-through's.

Each stage's handler is run in this process on the records the stage before it published
(encoded as the runtime encodes them, headers and checksum included), and timed in three
parts: decoding its input (`decode_input`, or the full validating decode where the stage
admits input from outside), its logic (the handler less that decode: on a record written
here this includes rebuilding the parts the logic reads), and encoding its output
(`output_record`: envelope, JSON, checksum, headers). What the hop process spends beyond
their sum is the runtime's loop and the Kafka client (fetching, decompressing, producing,
committing) and the broker round trips.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from schemas.envelope import decode
from schemas.registry import EVENT_TYPES, parse_type
from services.bench.timing import samples_ms
from services.bench.toy import HOPS
from services.runtime.dead_letters import Record
from services.runtime.loop import output_record
from services.runtime.stage import Message, Stage, decode_input

_DOOR = HOPS[0][1]


@dataclass(frozen=True)
class HopCost:
    """Median CPU ms per record of one hop's parts, and the bytes it reads and writes."""

    name: str
    in_bytes: int
    out_bytes: int
    decode_ms: float
    logic_ms: float
    encode_ms: float

    @property
    def in_process_ms(self) -> float:
        return self.decode_ms + self.logic_ms + self.encode_ms


def _decoder(message: Message) -> Callable[[], object]:
    """The decode a stage does first on `message`, for the event its `ce_type` header names:
    the full one at the door, the runtime's (`decode_input`) on an internal topic, none for
    a record of no known event."""
    named = parse_type(dict(message.headers).get("ce_type", b"").decode())
    if named is None or named[0] not in EVENT_TYPES:
        return lambda: None
    model = EVENT_TYPES[named[0]].model
    if message.topic == _DOOR:
        return partial(decode, message.value, expected=model)
    return partial(decode_input, message, model)


def hop_costs(stages: list[Stage], samples: list[Record], rounds: int = 1) -> list[HopCost]:
    """The parts of each stage's work on `samples` (answer.submitted records), in flow order:
    each part's median over the records of the least of `rounds` runs. One run by default:
    a hop sees each answer once, and a second run would find the stages' memos (passage
    indexes, chunk statistics) warm for it."""
    records = samples
    costs = []
    for stage in stages:
        decodes, handles, encodes, published = [], [], [], []
        for record in records:
            message = Message(stage.input_topics[0], record.value, record.key, 0, 0,
                              tuple(record.headers))
            decodes.append(min(samples_ms(_decoder(message), rounds, clock=time.process_time)))
            handles.append(min(samples_ms(partial(stage.handle, message), rounds,
                                          clock=time.process_time)))
            output = next(o for o in stage.handle(message) if o.topic == stage.output_topics[0])
            encodes.append(min(samples_ms(partial(output_record, stage.name, output), rounds,
                                          clock=time.process_time)))
            published.append(output_record(stage.name, output))
        median = statistics.median
        costs.append(HopCost(
            stage.name,
            int(median(len(r.value) for r in records)),
            int(median(len(r.value) for r in published)),
            median(decodes),
            max(0.0, median(h - d for h, d in zip(handles, decodes, strict=True))),
            median(encodes),
        ))
        records = published
    return costs
