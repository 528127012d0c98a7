"""Producing `documents.submitted` for uploads: the reference into the document store (never
the bytes), keyed by doc_id, the uploader's tenant as an envelope extension and in
`metadata.tenant` (ingest passes metadata through, so the store sink can stamp the
document's row), acknowledged by the broker before the upload is answered."""

from __future__ import annotations

import asyncio
from typing import Protocol

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from schemas.documents import DocumentSubmitted
from schemas.envelope import derived_event_id, encode, headers_for, make_event
from schemas.topics import DOCUMENTS_SUBMITTED
from services.gateway.problems import unavailable
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_producer

SOURCE = "citeflow/gateway"


class DocumentPublisher(Protocol):
    async def publish(self, submitted: DocumentSubmitted, tenant: str, sha256: str) -> str:
        """Produce the submission and wait for the broker; return the event id."""
        ...

    async def stop(self) -> None: ...


class KafkaDocumentPublisher:
    """An aiokafka producer started on the first upload (uploads are rare beside answers)."""

    def __init__(self, config: RuntimeConfig, timeout_s: float, retry_after_s: int) -> None:
        self._config = config
        self._timeout_s = timeout_s
        self._retry_after_s = retry_after_s
        self._producer: AIOKafkaProducer | None = None
        self._lock = asyncio.Lock()

    async def _started(self) -> AIOKafkaProducer:
        async with self._lock:
            if self._producer is None:
                producer = make_producer(self._config,
                                         request_timeout_ms=int(self._timeout_s * 1000))
                try:
                    await asyncio.wait_for(producer.start(), self._timeout_s)
                except (KafkaError, OSError, TimeoutError):
                    await producer.stop()
                    raise unavailable("broker", self._retry_after_s) from None
                self._producer = producer
            return self._producer

    async def publish(self, submitted: DocumentSubmitted, tenant: str, sha256: str) -> str:
        producer = await self._started()
        event = make_event(
            submitted, subject=submitted.doc_id, source=SOURCE,
            event_id=derived_event_id(f"{tenant}:{submitted.doc_id}:{sha256}", "gateway"),
            extensions=(("tenant", tenant),),
        )
        try:
            await asyncio.wait_for(
                producer.send_and_wait(
                    self._config.physical(DOCUMENTS_SUBMITTED), encode(event),
                    key=submitted.doc_id.encode(), headers=headers_for(event),
                ),
                self._timeout_s,
            )
        except (KafkaError, OSError, TimeoutError):
            raise unavailable("broker", self._retry_after_s) from None
        return event.id

    async def stop(self) -> None:
        if self._producer is not None:
            await self._producer.stop()
            self._producer = None
