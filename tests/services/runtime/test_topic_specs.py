"""The one topic definition: what each topic gets, how a cluster's topic is compared with
it, and message-size limits that agree from producer to topic to consumer to ingest."""

from __future__ import annotations

from services.ingest.documents.limits import DEFAULT_LIMITS
from services.ingest.answers import DEFAULT_MAX_BYTES
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_consumer, make_producer
from services.runtime.topic_specs import (
    MAX_MESSAGE_BYTES,
    MAX_RECORD_BYTES,
    TopicSpec,
    differences,
    min_insync_replicas,
    topic_spec,
)


def test_a_topic_gets_every_setting_and_dead_letters_are_kept_longer() -> None:
    spec = topic_spec("answers.cited", 12, 3, 1000)
    assert (spec.partitions, spec.replication_factor) == (12, 3)
    assert spec.configs == {"cleanup.policy": "delete", "retention.ms": "1000",
                            "min.insync.replicas": "2",
                            "max.message.bytes": str(MAX_MESSAGE_BYTES)}
    assert topic_spec("answers.cited.dlq", 12, 3, 1000).configs["retention.ms"] == "4000"


def test_min_insync_replicas_lets_one_broker_go() -> None:
    assert [min_insync_replicas(rf) for rf in (1, 2, 3, 5)] == [1, 1, 2, 2]


def test_differences_name_every_setting_that_differs() -> None:
    spec = topic_spec("t", 4, 3, 1000)
    found = TopicSpec("t", 2, 1, {**spec.configs, "retention.ms": "5", "cleanup.policy": "compact"})
    del found.configs["max.message.bytes"]
    assert [str(d) for d in differences(spec, found)] == [
        "t: partitions is 2, the definition says 4",
        "t: replication factor is 1, the definition says 3",
        "t: cleanup.policy is compact, the definition says delete",
        "t: retention.ms is 5, the definition says 1000",
        f"t: max.message.bytes is unset, the definition says {MAX_MESSAGE_BYTES}",
    ]
    assert [str(d) for d in differences(spec, None)] == [
        "t: topic is missing, the definition says present"]
    assert differences(spec, spec) == []


async def test_message_size_limits_agree() -> None:
    config = RuntimeConfig(bootstrap_servers="127.0.0.1:1")
    producer = make_producer(config)
    consumer = make_consumer(config, group_id=None)
    # Every record a producer sends fits every topic and every consumer's fetch.
    assert producer._max_request_size == MAX_RECORD_BYTES < MAX_MESSAGE_BYTES
    assert consumer._max_partition_fetch_bytes >= MAX_MESSAGE_BYTES
    # Ingest and the answer limit refuse what would not fit, before Kafka.
    assert DEFAULT_LIMITS.max_event_bytes < MAX_RECORD_BYTES
    assert DEFAULT_MAX_BYTES < MAX_RECORD_BYTES
    await producer.stop()
    await consumer.stop()


async def test_producers_wait_for_every_replica() -> None:
    producer = make_producer(RuntimeConfig(bootstrap_servers="127.0.0.1:1"))
    assert producer._sender._acks == -1  # acks=all
    idempotent = make_producer(RuntimeConfig(bootstrap_servers="127.0.0.1:1",
                                             enable_idempotence=True))
    assert idempotent._txn_manager is not None and producer._txn_manager is None
    for made in (producer, idempotent):
        await made.stop()
