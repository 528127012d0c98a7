"""aiokafka client factories with the runtime's settings (one place for every knob)."""

from __future__ import annotations

from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from services.runtime.config import RuntimeConfig

# Large enough for a rejection carrying an over-size input (base64) plus headers, and for
# documents.ingested events (ingest refuses documents whose event would exceed 15 MiB).
MAX_REQUEST_BYTES = 16 * 1024 * 1024


def make_producer(config: RuntimeConfig, **extra: Any) -> AIOKafkaProducer:
    """A producer with acks=all; no idempotence (Tansu has no InitProducerId)."""
    return AIOKafkaProducer(
        bootstrap_servers=config.bootstrap_servers,
        acks="all",
        enable_idempotence=False,
        linger_ms=config.linger_ms,
        max_request_size=MAX_REQUEST_BYTES,
        max_batch_size=1024 * 1024,
        **extra,
    )


def make_consumer(config: RuntimeConfig, *topics: str, group_id: str | None, **extra: Any) -> (
    AIOKafkaConsumer
):
    """A consumer with manual commits, a low fetch wait and the configured session timeout."""
    return AIOKafkaConsumer(
        *topics,
        bootstrap_servers=config.bootstrap_servers,
        group_id=group_id,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        fetch_max_wait_ms=config.fetch_max_wait_ms,
        max_partition_fetch_bytes=MAX_REQUEST_BYTES,
        session_timeout_ms=config.session_timeout_ms,
        heartbeat_interval_ms=config.heartbeat_interval_ms,
        **extra,
    )
