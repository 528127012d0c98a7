"""aiokafka client factories with the runtime's settings (one place for every knob): the
connection settings (TLS, SASL) of `config.kafka`, acks=all, and the message-size limit
that producers, consumers and topics share (services/runtime/topic_specs.py)."""

from __future__ import annotations

from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from services.runtime.config import RuntimeConfig
from services.runtime.topic_specs import MAX_MESSAGE_BYTES, MAX_RECORD_BYTES


def make_producer(config: RuntimeConfig, **extra: Any) -> AIOKafkaProducer:
    """A producer with acks=all, idempotent when the broker grants producer ids (decided at
    start-up: `config.enable_idempotence`; the embedded Tansu broker does not)."""
    return AIOKafkaProducer(
        bootstrap_servers=config.bootstrap_servers,
        acks="all",
        enable_idempotence=bool(config.enable_idempotence),
        linger_ms=config.linger_ms,
        max_request_size=MAX_RECORD_BYTES,
        max_batch_size=1024 * 1024,
        **config.kafka.client_kwargs(),
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
        max_partition_fetch_bytes=MAX_MESSAGE_BYTES,
        session_timeout_ms=config.session_timeout_ms,
        heartbeat_interval_ms=config.heartbeat_interval_ms,
        **config.kafka.client_kwargs(),
        **extra,
    )


def make_admin(config: RuntimeConfig, **extra: Any) -> AIOKafkaAdminClient:
    """An admin client (topics, configs, consumer-group offsets)."""
    return AIOKafkaAdminClient(bootstrap_servers=config.bootstrap_servers,
                               **config.kafka.client_kwargs(), **extra)
