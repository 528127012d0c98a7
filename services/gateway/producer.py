"""Producing submitted answers to `answers.submitted`: a CloudEvents envelope keyed by
answer_id with the key's tenant as an extension attribute, acks=all, awaited before the
gateway answers (a timeout or broker error is a 503: nothing is acknowledged that the broker
did not store)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import orjson
import structlog
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from schemas.answers import AnswerSubmitted
from schemas.envelope import derived_event_id, encode, headers_for, make_event
from schemas.topics import ANSWERS_SUBMITTED
from services.gateway.problems import ProblemError, unavailable
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_producer

SOURCE = "citeflow/gateway"
_RECONNECT_S = (0.2, 5.0)  # first and longest pause between start attempts
_PROBE_TIMEOUT_S = 2.0
log = structlog.get_logger("citeflow", stage="gateway")


def canonical_json(answer: AnswerSubmitted) -> bytes:
    """An answer's canonical JSON (sorted keys): the same answer sent with other whitespace
    or key order writes the same bytes; any other content does not. What the gateway hashes
    (the 409 check) and produces as the event's data."""
    try:
        return orjson.dumps(answer, default=_fields, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        # What orjson cannot write (an integer beyond 64 bits in metadata or a year): the
        # standard library's encoder, as deterministic.
        return json.dumps(answer.model_dump(mode="json"), sort_keys=True,
                          separators=(",", ":"), ensure_ascii=False).encode()


def body_sha256(canonical: bytes) -> str:
    return hashlib.sha256(canonical).hexdigest()


def _fields(value: Any) -> Any:
    return value.__dict__


class AnswerProducer:
    """One aiokafka producer per gateway process, started in the background (the gateway
    serves reads and answers 503 to submits while the broker is unreachable)."""

    def __init__(self, config: RuntimeConfig, send_timeout_s: float, retry_after_s: int):
        self._config = config
        self._topic = config.physical(ANSWERS_SUBMITTED)
        self._send_timeout_s = send_timeout_s
        self._retry_after_s = retry_after_s
        self._producer: AIOKafkaProducer | None = None
        self._starting: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Begin connecting; returns at once."""
        self._starting = asyncio.create_task(self._connect())

    async def _connect(self) -> None:
        pause = _RECONNECT_S[0]
        while True:
            # max_batch_size: 1 MiB (make_producer), not aiokafka's 16 KB, which would cap
            # 6 KB answers at about two per batch.
            producer = make_producer(self._config,
                                     request_timeout_ms=int(self._send_timeout_s * 1000))
            try:
                await producer.start()
            except (KafkaError, OSError) as exc:
                await producer.stop()
                log.warning("broker not reachable yet", error=str(exc), retry_in_s=pause)
                await asyncio.sleep(pause)
                pause = min(pause * 2, _RECONNECT_S[1])
                continue
            self._producer = producer
            log.info("producer connected", bootstrap=self._config.bootstrap_servers)
            return

    async def connected(self) -> None:
        """Wait until `start()`'s connection attempts succeeded."""
        assert self._starting is not None, "start() first"
        await asyncio.shield(self._starting)

    async def stop(self) -> None:
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
        if self._producer is not None:
            await self._producer.stop()

    async def ready(self) -> bool:
        """Whether the broker answers a metadata request now."""
        if self._producer is None:
            return False
        try:
            await asyncio.wait_for(self._producer.client.fetch_all_metadata(), _PROBE_TIMEOUT_S)
        except (KafkaError, OSError, TimeoutError):
            return False
        return True

    async def send(self, answer: AnswerSubmitted, tenant: str, body_sha256: str,
                   canonical: bytes) -> str:
        """Produce one answer (`canonical`: its canonical JSON, the event's data) and wait for
        the broker's acknowledgement (acks=all); returns the event id (derived from the
        body, so a retried send carries the same id). Raises a 503 ProblemError when the
        broker did not acknowledge it in time."""
        if self._producer is None:
            raise unavailable("broker", self._retry_after_s)
        event = make_event(
            answer, subject=answer.answer_id, source=SOURCE,
            event_id=derived_event_id(body_sha256, "gateway"),
            extensions=(("tenant", tenant),),
        )
        try:
            # asyncio.timeout, not wait_for: no extra task per submit.
            async with asyncio.timeout(self._send_timeout_s):
                await self._producer.send_and_wait(
                    self._topic, encode(event, canonical), key=answer.answer_id.encode(),
                    headers=headers_for(event),
                )
        except (KafkaError, OSError, TimeoutError) as exc:
            log.warning("broker did not acknowledge", answer_id=answer.answer_id,
                        error=f"{type(exc).__name__}: {exc}")
            raise unavailable("broker", self._retry_after_s) from None
        except ValueError as exc:  # aiokafka refuses a message over max_request_size
            raise ProblemError(413, "too_large", str(exc)) from None
        return event.id
