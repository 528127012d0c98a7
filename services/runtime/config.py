"""Runtime configuration: environment variables with sane defaults, overridable by flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import Any

from services.runtime.connection import KafkaConnection

# Environment variable of each field (all optional).
ENV_VARS: dict[str, str] = {
    "bootstrap_servers": "KAFKA_BOOTSTRAP_SERVERS",
    "group_id": "CITEFLOW_GROUP_ID",
    "group_instance_id": "CITEFLOW_GROUP_INSTANCE_ID",
    "topic_prefix": "CITEFLOW_TOPIC_PREFIX",
    "partitions": "CITEFLOW_PARTITIONS",
    "replication_factor": "CITEFLOW_REPLICATION_FACTOR",
    "retention_ms": "CITEFLOW_RETENTION_MS",
    "batch_size": "CITEFLOW_BATCH_SIZE",
    "fetch_max_wait_ms": "CITEFLOW_FETCH_MAX_WAIT_MS",
    "linger_ms": "CITEFLOW_LINGER_MS",
    "session_timeout_ms": "CITEFLOW_SESSION_TIMEOUT_MS",
    "heartbeat_interval_ms": "CITEFLOW_HEARTBEAT_INTERVAL_MS",
    "retry_max_attempts": "CITEFLOW_RETRY_MAX_ATTEMPTS",
    "retry_base_ms": "CITEFLOW_RETRY_BASE_MS",
    "retry_max_ms": "CITEFLOW_RETRY_MAX_MS",
    "shutdown_timeout_s": "CITEFLOW_SHUTDOWN_TIMEOUT_S",
    "metrics_port": "CITEFLOW_METRICS_PORT",
    "log_level": "CITEFLOW_LOG_LEVEL",
    "enable_idempotence": "KAFKA_ENABLE_IDEMPOTENCE",
    "connect_timeout_s": "CITEFLOW_CONNECT_TIMEOUT_S",
}


@dataclass(frozen=True)
class RuntimeConfig:
    """Everything a stage process needs to talk to Kafka."""

    # Empty: not configured (the CLI then finds a running `citeflow up` or starts a broker).
    bootstrap_servers: str = ""
    # Consumer group; empty means `citeflow-<stage>` (with the topic prefix in front).
    group_id: str = ""
    # Static membership (Kafka's group.instance.id): a name unique to this process in its
    # group, kept across restarts (e.g. a StatefulSet pod's name). A member restarted within
    # the session timeout gets its partitions back with no rebalance; a stopped or killed one
    # sends no LeaveGroup, so its partitions wait for the session timeout. Empty: dynamic.
    group_instance_id: str = ""
    # Prepended to every topic a stage reads and writes (test isolation, multi-tenancy).
    topic_prefix: str = ""
    partitions: int = 4
    # Topic definition (services/runtime/topic_specs.py): replicas of each partition and
    # how long records are kept (dead-letter topics: four times as long).
    replication_factor: int = 1
    retention_ms: int = 7 * 24 * 60 * 60 * 1000
    batch_size: int = 100
    # The fetch long-poll bound mostly sets how often an idle consumer asks the broker
    # (`citeflow bench idle`, on Tansu): five idle stages plus the broker burn 0.28-0.34 of
    # a core at 20 ms, 0.14-0.18 at 50 and 0.09-0.10 at 100, while a single answer's p50
    # latency through all five stages is no worse at 50 ms than at 20 (44-50 against
    # 55-61 ms: Tansu answers a waiting fetch when data arrives). At 100 ms the p50 at
    # half load grew by half in `bench e2e`, so 50.
    fetch_max_wait_ms: int = 50
    linger_ms: int = 2
    # `citeflow bench groups` on Tansu: a member joins in about half the session timeout
    # and a survivor owns a SIGKILLed member's partitions after about 1.6x it: 5.1 s and
    # 17 s at aiokafka's 10 s / 3 s, 3.05 s and 9.5 s at 6 s / 1 s. Lower risks dropping a
    # member whose event loop is busy with a long batch on a loaded machine.
    session_timeout_ms: int = 6_000
    heartbeat_interval_ms: int = 1_000
    retry_max_attempts: int = 5
    retry_base_ms: int = 100
    retry_max_ms: int = 10_000
    shutdown_timeout_s: float = 15.0
    # Prometheus endpoint port; None or 0 disables it.
    metrics_port: int | None = None
    log_level: str = "info"
    # Idempotent producers: None means "decided at start-up" (on when the broker grants
    # producer ids; the embedded Tansu broker does not, see services/runtime/preflight.py).
    enable_idempotence: bool | None = None
    # How long a stage or command waits for an unreachable broker at start-up before it
    # exits with one line saying so.
    connect_timeout_s: float = 30.0
    # Security protocol, TLS files and SASL credentials (KAFKA_SECURITY_PROTOCOL, ...).
    kafka: KafkaConnection = field(default_factory=KafkaConnection)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> RuntimeConfig:
        """Defaults, then environment variables, then explicit overrides (None = not given)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name, variable in ENV_VARS.items():
            raw = env.get(variable)
            if raw is not None and raw != "":
                values[name] = _convert(name, raw)
        config = cls(**values, kafka=KafkaConnection.from_env(env))
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(config, **given) if given else config

    def group_for(self, stage: str) -> str:
        """The consumer group of a stage."""
        return self.group_id or f"{self.topic_prefix}citeflow-{stage}"

    def physical(self, topic: str) -> str:
        """The broker-side name of a logical topic."""
        return self.topic_prefix + topic

    def logical(self, topic: str) -> str:
        """The logical name of a broker-side topic."""
        if self.topic_prefix and topic.startswith(self.topic_prefix):
            return topic[len(self.topic_prefix) :]
        return topic


_INTS = {
    "partitions", "replication_factor", "retention_ms", "batch_size", "fetch_max_wait_ms",
    "linger_ms", "session_timeout_ms", "heartbeat_interval_ms", "retry_max_attempts",
    "retry_base_ms", "retry_max_ms", "metrics_port",
}


def _convert(name: str, raw: str) -> Any:
    try:
        if name in _INTS:
            return int(raw)
        if name in ("shutdown_timeout_s", "connect_timeout_s"):
            return float(raw)
    except ValueError:
        raise ValueError(f"{ENV_VARS[name]}={raw!r} is not a number") from None
    if name == "enable_idempotence":
        if raw.lower() not in ("true", "false"):
            raise ValueError(f"{ENV_VARS[name]}={raw!r} is not true or false")
        return raw.lower() == "true"
    return raw


def to_env(config: RuntimeConfig) -> dict[str, str]:
    """The environment variables that reproduce `config` in a child process (without the
    group id: each stage of a child derives its own; nor the group instance id, which
    names one process)."""
    env: dict[str, str] = config.kafka.to_env()
    for f in fields(config):
        value = getattr(config, f.name)
        if f.name in ("group_id", "group_instance_id", "kafka") or value is None or value == "":
            continue
        env[ENV_VARS[f.name]] = str(value).lower() if isinstance(value, bool) else str(value)
    return env
