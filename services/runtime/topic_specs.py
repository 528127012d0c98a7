"""The one definition of the pipeline's topics: partitions, replication factor and the topic
configs (min.insync.replicas, retention, cleanup policy, max.message.bytes) that `citeflow
topics create` applies and `citeflow topics check` compares with a running cluster.

Message sizes agree everywhere: producers refuse a record over MAX_RECORD_BYTES before it
reaches Kafka; every topic accepts MAX_MESSAGE_BYTES (the record plus its batch's
overhead); consumers fetch up to MAX_MESSAGE_BYTES per partition; ingest refuses a
document whose `documents.ingested` event would not fit (IngestLimits.max_event_bytes).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MiB = 1024 * 1024
MAX_RECORD_BYTES = 16 * MiB
MAX_MESSAGE_BYTES = MAX_RECORD_BYTES + 64 * 1024
DAY_MS = 24 * 60 * 60 * 1000
# Dead letters wait for a person: they are kept four times as long as pipeline records.
DLQ_RETENTION_FACTOR = 4


@dataclass(frozen=True)
class TopicSpec:
    """What one topic should look like on the cluster."""

    name: str
    partitions: int
    replication_factor: int
    configs: dict[str, str]


def min_insync_replicas(replication_factor: int) -> int:
    """Acknowledged writes survive one broker's loss: 2 of 3 (or more) replicas, else 1."""
    return 2 if replication_factor >= 3 else 1


def topic_spec(name: str, partitions: int, replication_factor: int, retention_ms: int) -> (
    TopicSpec
):
    """The definition of topic `name` (a physical name; `.dlq` topics keep records longer)."""
    retention = retention_ms * (DLQ_RETENTION_FACTOR if name.endswith(".dlq") else 1)
    return TopicSpec(name, partitions, replication_factor, {
        "cleanup.policy": "delete",
        "retention.ms": str(retention),
        "min.insync.replicas": str(min_insync_replicas(replication_factor)),
        "max.message.bytes": str(MAX_MESSAGE_BYTES),
    })


def topic_specs(names: Iterable[str], partitions: int, replication_factor: int,
                retention_ms: int) -> list[TopicSpec]:
    """The definitions of `names` (in order, each once)."""
    return [topic_spec(name, partitions, replication_factor, retention_ms)
            for name in dict.fromkeys(names)]


@dataclass(frozen=True)
class Difference:
    """One way a topic on the cluster differs from its definition."""

    topic: str
    setting: str
    wanted: str
    found: str

    def __str__(self) -> str:
        return f"{self.topic}: {self.setting} is {self.found}, the definition says {self.wanted}"


def differences(spec: TopicSpec, found: TopicSpec | None) -> list[Difference]:
    """Every difference between a definition and what the cluster has (None: missing)."""
    if found is None:
        return [Difference(spec.name, "topic", "present", "missing")]
    diffs = [Difference(spec.name, setting, str(want), str(have)) for setting, want, have in (
        ("partitions", spec.partitions, found.partitions),
        ("replication factor", spec.replication_factor, found.replication_factor),
    ) if want != have]
    for key, want in spec.configs.items():
        have = found.configs.get(key)
        if have != want:
            diffs.append(Difference(spec.name, key, want, "unset" if have is None else have))
    return diffs
