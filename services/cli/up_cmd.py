"""`citeflow up`: broker, topics, every stage as its own supervised process, the store sink,
the gateway and the demo, on one machine until Ctrl-C."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
import orjson
from rich.live import Live
from rich.table import Table

from schemas.topics import ANSWERS_FORMATTED
from services.cli import main
from services.cli.options import (
    checked_config,
    config_options,
    create_pipeline_topics,
    err,
    print_json,
    run_async,
    runtime_config,
)
from services.native import describe as describe_native
from services.runtime.config import RuntimeConfig


# -- everything ----------------------------------------------------------------------------


def _parse_replicas(values: tuple[str, ...]) -> dict[str, int]:
    replicas: dict[str, int] = {}
    for value in values:
        name, sep, count = value.partition("=")
        if not sep or not count.isdigit() or int(count) < 1:
            raise click.BadParameter(f"{value!r} is not STAGE=N", param_hint="--replicas")
        replicas[name] = int(count)
    return replicas


@main.command()
@config_options()
@click.option("--partitions", type=int, help="Partitions per topic [env CITEFLOW_PARTITIONS; 4]")
@click.option("--replicas", multiple=True, metavar="STAGE=N",
              help="Run N processes of a stage (repeatable), e.g. --replicas spans=2")
@click.option("--stage", "specs", multiple=True, metavar="STAGE",
              help="Run these stages (name or module:attr) instead of the five pipeline stages")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path(".citeflow/logs"), show_default=True,
              help="Where each stage process writes its JSON log lines")
@click.option("--submit", "--demo", "submit_file", type=click.File("r"),
              help="After start-up, submit these answers (one JSON object, a JSON array, "
                   "or JSON lines) and print each result's summary (and, when stdout is not "
                   "a terminal, its JSON on stdout); then keep serving. With the gateway they "
                   "go through POST /v1/answers?wait= with the demo tenant's key (made once, "
                   "kept in .citeflow/demo-key), after its history is written once, else "
                   "straight to the topic")
@click.option("--gateway/--no-gateway", default=True, show_default=True,
              help="Also run the results-store sink and the HTTP gateway (`citeflow serve`)")
@click.option("--http-host", default=None,
              help="Gateway interface [env CITEFLOW_HTTP_HOST; 127.0.0.1]")
@click.option("--http-port", type=int, default=None,
              help="Gateway port [env CITEFLOW_HTTP_PORT; 8000]")
def up(replicas: tuple[str, ...], specs: tuple[str, ...], log_dir: Path,
       submit_file: Any, gateway: bool, http_host: str | None, http_port: int | None,
       **flags: Any) -> None:
    """Run everything: broker, topics, every stage as its own process, the results-store
    sink and the HTTP gateway.

    With CITEFLOW_METRICS_PORT=P each stage process serves Prometheus metrics on P, P+1, ...
    (the gateway serves its own on /metrics).

    Starts the embedded broker unless KAFKA_BOOTSTRAP_SERVERS (or --bootstrap) names one,
    creates the topics, migrates the store, starts each process (restarting one that dies),
    prints the gateway URL and serves until Ctrl-C, which stops the processes cleanly and then
    the broker.
    """
    from services.broker import forget_bootstrap, remember_bootstrap, start_broker
    from services.cli import demo
    from services.gateway.settings import GatewaySettings
    from services.runtime.config import to_env
    from services.runtime.registry import pipeline_stage_names
    from services.runtime.supervisor import Child, Supervisor
    from services.stages import SINK_NAMES, optional_stage_names

    with_gateway = gateway and not specs
    # The judging stage too when CITEFLOW_JUDGING names a judge (checked here, once, with the
    # topics: an unknown model stops `up` with its error before any process starts).
    stage_specs = list(specs) or [*pipeline_stage_names(), *optional_stage_names(),
                                  *(SINK_NAMES if gateway else ())]
    counts = _parse_replicas(replicas)
    unknown = set(counts) - set(stage_specs)
    if unknown:
        raise click.BadParameter(f"unknown stage(s): {', '.join(sorted(unknown))}",
                                 param_hint="--replicas")
    config = runtime_config(resolve=False, **flags)
    err.print(f"stage logic: {describe_native()}")
    embedded = None
    if not config.bootstrap_servers:
        embedded = start_broker()
        remember_bootstrap(embedded.bootstrap)
        config = replace(config, bootstrap_servers=embedded.bootstrap)
        err.print(f"[green]embedded broker[/] on {embedded.bootstrap} (pid {embedded.pid}); "
                  "[yellow]it keeps every topic in memory[/]: when it stops, records not yet "
                  "processed are gone (answers the gateway accepted are re-driven from the "
                  "results store at the next start); set KAFKA_BOOTSTRAP_SERVERS to use a "
                  "durable Kafka")
    supervisor = None
    try:
        config = checked_config(config)
        created = create_pipeline_topics(config, stage_specs)
        err.print(f"topics ready ({len(created)} created, {config.partitions} partitions)")
        log_dir.mkdir(parents=True, exist_ok=True)
        env = to_env(config)
        replicas_of = [(spec, n) for spec in stage_specs for n in range(counts.get(spec, 1))]
        children = [
            Child(spec, n, {**env, **_metrics_env(config, index)},
                  log_dir / f"{spec.rsplit(':', 1)[-1]}-{n}.log")
            for index, (spec, n) in enumerate(replicas_of)
        ]
        if config.metrics_port:
            err.print(f"metrics on ports {config.metrics_port}.."
                      f"{config.metrics_port + len(children) - 1}")
        base = None
        if with_gateway:
            err.print(f"results store: {demo.migrate_store()}")
            if submit_file is not None:
                seeded = demo.seed_history_once()
                err.print("demo history: kept from an earlier run" if seeded is None
                          else f"demo history: {seeded} answers over the last hours")
            http = GatewaySettings.from_env(host=http_host, port=http_port)
            base = f"http://{http.host}:{http.port}"
            # A new embedded broker's log is empty: every answer accepted before and not
            # finished is lost from it, so the gateway re-drives them all at start.
            redrive = ({"CITEFLOW_REDRIVE_AFTER_S": "0"}
                       if embedded is not None and "CITEFLOW_REDRIVE_AFTER_S" not in os.environ
                       else {})
            children.append(demo.gateway_child({**redrive, **env}, http.host, http.port,
                                               log_dir / "gateway-0.log"))
        supervisor = Supervisor(children)
        supervisor.start()
        if base is not None:
            # In the background, so dying processes are restarted while we wait.
            lines = _answer_lines(submit_file.read()) if submit_file is not None else []
            threading.Thread(target=_gateway_ready, daemon=True,
                             args=(base, lines, log_dir.parent / "demo-key")).start()
        elif submit_file is not None:
            threading.Thread(target=_submit_and_show, daemon=True,
                             args=(config, _answer_lines(submit_file.read()))).start()
        _supervise(supervisor, embedded)
    finally:
        if supervisor is not None:
            err.print("stopping stages ...")
            supervisor.stop(config.shutdown_timeout_s + 5)
        if embedded is not None:
            forget_bootstrap(embedded.bootstrap)
            embedded.stop()
            err.print("broker stopped")


def _gateway_ready(base: str, lines: list[str], key_file: Path) -> None:
    """Once the gateway is ready: the demo key, the demo answers through it, the URLs."""
    from services.cli import demo

    if not demo.wait_ready(base):
        err.print(f"[red]gateway not ready at {base}[/] (see its log)")
        return
    key, reused = demo.demo_key(key_file)
    err.print(f"demo key: {'the one of an earlier run' if reused else 'new'}, kept in {key_file}")
    if lines:
        demo.submit_demo(base, key, lines)
    else:
        demo.print_access(base, key)


def _metrics_env(config: RuntimeConfig, index: int) -> dict[str, str]:
    """Each process its own metrics port: CITEFLOW_METRICS_PORT + its index."""
    if not config.metrics_port:
        return {}
    return {"CITEFLOW_METRICS_PORT": str(config.metrics_port + index)}


def _status_table(supervisor: Any) -> Table:
    table = Table(title="citeflow up (Ctrl-C stops)", expand=False)
    for column in ("process", "pid", "status", "restarts", "log"):
        table.add_column(column)
    for child in supervisor.children:
        pid = child.pid
        status = "[green]running[/]" if pid else f"[red]exited {child.last_exit}[/]"
        table.add_row(child.name, str(pid or "-"), status, str(child.restarts),
                      str(child.log_path))
    return table


def _supervise(supervisor: Any, embedded: Any) -> None:
    """Keep the stages alive until Ctrl-C/SIGTERM (or the embedded broker dies)."""
    stop = {"flag": False}

    def handler(_signum: int, _frame: Any) -> None:
        stop["flag"] = True

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)
    live = Live(_status_table(supervisor), console=err, refresh_per_second=2,
                transient=False) if err.is_terminal else None
    if live is not None:
        live.start()
    try:
        while not stop["flag"]:
            if embedded is not None and not embedded.alive():
                err.print("[red]embedded broker died[/]")
                raise click.ClickException("embedded broker died")
            for event in supervisor.check():
                err.print(event)
            if live is not None:
                live.update(_status_table(supervisor))
            time.sleep(0.5)
    finally:
        if live is not None:
            live.stop()


def _answer_lines(content: str) -> list[str]:
    """One JSON line per answer, from a JSON object, a JSON array or JSON lines."""
    try:
        whole = orjson.loads(content)
    except orjson.JSONDecodeError:
        return content.splitlines()
    items = whole if isinstance(whole, list) else [whole]
    return [orjson.dumps(item).decode() for item in items]


def _submit_and_show(config: RuntimeConfig, lines: list[str]) -> None:
    """Publish answers, then print each one's formatted result as it arrives (a readable
    summary on stderr; the event as JSON on stdout when it is not a terminal)."""
    from services.cli.summary import summary
    from services.runtime.operations import answer_records, tail
    from services.runtime.topic_io import publish

    records, bad = answer_records(lines)
    for item in bad:
        err.print(f"[red]line {item.line}[/] ({item.answer_id}): {item.error}")
    wanted = {r.key for r in records}

    async def go() -> None:
        ready = asyncio.Event()
        printed: set[bytes] = set()

        def show(record: Any) -> None:
            if record.key in wanted and record.key not in printed:
                printed.add(record.key)
                event = orjson.loads(record.value)
                if not sys.stdout.isatty():  # the JSON for a pipe; a terminal reads the summary
                    print_json(event)
                err.print(summary(event["data"]))

        task = asyncio.create_task(tail(config, ANSWERS_FORMATTED, show, ready=ready,
                                        count=None, timeout=120))
        await ready.wait()
        await publish(config, records)
        err.print(f"submitted {len(records)} answer(s); waiting for results ...")
        while len(printed) < len(wanted) and not task.done():
            await asyncio.sleep(0.1)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        if len(printed) < len(wanted):
            err.print(f"[yellow]{len(wanted) - len(printed)} result(s) not seen in time[/]")

    try:
        run_async(go())
    except click.ClickException as exc:
        err.print(f"[red]demo failed:[/] {exc.message}")
