"""What the runtime commands share: the broker and topic flags, the runtime configuration
they make (finding the broker of a running `citeflow up`), broker errors as one line,
JSON output, offset ranges, waiting for a signal, and creating the pipeline's topics."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import click
import orjson
from rich.console import Console

from services.runtime.config import RuntimeConfig

err = Console(stderr=True)


def config_options(*, run: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Flags overriding the environment variables of RuntimeConfig."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        options = [
            click.option("--bootstrap", "bootstrap_servers", metavar="HOST:PORT",
                         help="Kafka bootstrap servers [env KAFKA_BOOTSTRAP_SERVERS; default: "
                              "the broker of a running `citeflow up`]"),
            click.option("--prefix", "topic_prefix", metavar="TEXT",
                         help="Prefix of every topic name [env CITEFLOW_TOPIC_PREFIX]"),
        ]
        if run:
            options += [
                click.option("--group-id", help="Consumer group [env CITEFLOW_GROUP_ID; "
                                                "default citeflow-STAGE]"),
                click.option("--batch-size", type=int, help="Max records per fetch "
                                                            "[env CITEFLOW_BATCH_SIZE; 100]"),
                click.option("--fetch-max-wait-ms", type=int,
                             help="Fetch long-poll wait [env CITEFLOW_FETCH_MAX_WAIT_MS; 50]"),
                click.option("--retry-max-attempts", type=int,
                             help="Attempts before a dead letter "
                                  "[env CITEFLOW_RETRY_MAX_ATTEMPTS; 5]"),
                click.option("--retry-base-ms", type=int,
                             help="First backoff [env CITEFLOW_RETRY_BASE_MS; 100]"),
                click.option("--retry-max-ms", type=int,
                             help="Backoff cap [env CITEFLOW_RETRY_MAX_MS; 10000]"),
                click.option("--session-timeout-ms", type=int,
                             help="Group session timeout [env CITEFLOW_SESSION_TIMEOUT_MS; 6000]"),
                click.option("--heartbeat-interval-ms", type=int,
                             help="Heartbeat interval [env CITEFLOW_HEARTBEAT_INTERVAL_MS; 1000]"),
                click.option("--metrics-port", type=int,
                             help="Prometheus port, 0 = off [env CITEFLOW_METRICS_PORT; off]"),
                click.option("--log-level", help="Log level [env CITEFLOW_LOG_LEVEL; info]"),
            ]
        for option in reversed(options):
            fn = option(fn)
        return fn

    return wrap


def runtime_config(resolve: bool = True, wait: bool = True, **overrides: Any) -> RuntimeConfig:
    """RuntimeConfig from env and flags; with `resolve`, a bootstrap address is required
    (falling back to the broker of a running `citeflow up`/`citeflow broker`) and the
    broker is checked (`checked_config`, waiting for it with `wait`)."""
    config = RuntimeConfig.from_env(**overrides)
    if not resolve:
        return config
    if not config.bootstrap_servers:
        from services.broker import discover_bootstrap

        found = discover_bootstrap()
        if found is None:
            raise click.UsageError(
                "no broker: set KAFKA_BOOTSTRAP_SERVERS, pass --bootstrap, or start "
                "`citeflow up` / `citeflow broker` first"
            )
        config = replace(config, bootstrap_servers=found)
    return checked_config(config, wait=wait)


def checked_config(config: RuntimeConfig, *, wait: bool = True) -> RuntimeConfig:
    """`config` once the broker accepted a connection with its settings (TLS, SASL), with
    idempotence decided. A broker that refuses them ends the command with one line (exit
    status 1); one that stays unreachable too, after CITEFLOW_CONNECT_TIMEOUT_S (without
    `wait`: reported, and `config` returned as it is)."""
    from services.runtime.preflight import BrokerUnusable, check_broker

    try:
        return asyncio.run(check_broker(config, None if wait else 0.0,
                                        waiting=lambda line: err.print(line)))
    except BrokerUnusable as exc:
        if not wait and not exc.permanent:
            err.print(f"[yellow]{exc}[/]; continuing without it")
            return config
        raise click.ClickException(f"{exc} [{config.kafka.describe()}]") from None


def run_async(coro: Any) -> Any:
    """Run a coroutine, turning broker errors into a clean CLI error."""
    from aiokafka.errors import KafkaError

    try:
        return asyncio.run(coro)
    except (KafkaError, LookupError) as exc:
        raise click.ClickException(str(exc)) from None


def print_json(obj: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(obj) + b"\n")
    sys.stdout.buffer.flush()


def wait_for_signal(done: Callable[[], bool]) -> None:
    """Block until SIGINT/SIGTERM or until `done()` turns true."""
    stop = {"flag": False}

    def handler(_signum: int, _frame: Any) -> None:
        stop["flag"] = True

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not stop["flag"] and not done():
            time.sleep(0.2)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def stage_inputs(specs: list[str] | None = None) -> list[str]:
    from services.runtime.registry import load_stage, pipeline_stage_names
    from services.stages import SINK_NAMES

    try:
        stages = [load_stage(s) for s in specs or (*pipeline_stage_names(), *SINK_NAMES)]
    except LookupError as exc:
        raise click.BadParameter(str(exc), param_hint="--stage") from None
    return [topic for stage in stages for topic in stage.input_topics]


def pipeline_topic_names(config: RuntimeConfig, specs: Any = None) -> list[str]:
    """The physical names of the topics of `specs` (default: every stage and the store)."""
    from services.broker import pipeline_topics

    return pipeline_topics(stage_inputs(list(specs or ()) or None), config.topic_prefix)


def create_pipeline_topics(config: RuntimeConfig, specs: list[str] | None = None) -> list[str]:
    from services.broker import create_topics

    return run_async(create_topics(config, pipeline_topic_names(config, specs)))


def range_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed([
        click.option("--partition", type=int, help="Only this partition"),
        click.option("--start", type=int, help="First offset (inclusive)"),
        click.option("--end", type=int, help="Last offset (exclusive)"),
    ]):
        fn = option(fn)
    return fn
