"""One input record and the records produced for it, on their way to the producer: what the
stage loop (services.runtime.loop) and the sink runner (services.runtime.sink) hand on."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from aiokafka import TopicPartition

from services.runtime.dead_letters import Record
from services.runtime.stage import Message


@dataclass(slots=True)
class Pending:
    """One input record and the records produced for it, handed to the producer."""

    tp: TopicPartition
    message: Message
    records: list[Record]
    futures: list[asyncio.Future[Any]] = field(default_factory=list)
