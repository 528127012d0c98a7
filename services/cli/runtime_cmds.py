"""Runtime commands: broker, topics, run, up, submit, tail, replay, dlq, bench e2e."""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
import orjson
from rich.console import Console
from rich.live import Live
from rich.table import Table

from schemas.topics import ANSWERS_FORMATTED
from services.cli import bench, main
from services.runtime.config import RuntimeConfig

err = Console(stderr=True)


def _config_options(*, run: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
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
                             help="Group session timeout [env CITEFLOW_SESSION_TIMEOUT_MS; 10000]"),
                click.option("--heartbeat-interval-ms", type=int,
                             help="Heartbeat interval [env CITEFLOW_HEARTBEAT_INTERVAL_MS; 3000]"),
                click.option("--metrics-port", type=int,
                             help="Prometheus port, 0 = off [env CITEFLOW_METRICS_PORT; off]"),
                click.option("--log-level", help="Log level [env CITEFLOW_LOG_LEVEL; info]"),
            ]
        for option in reversed(options):
            fn = option(fn)
        return fn

    return wrap


def _config(resolve: bool = True, **overrides: Any) -> RuntimeConfig:
    """RuntimeConfig from env and flags; with `resolve`, a bootstrap address is required and
    falls back to the broker of a running `citeflow up`/`citeflow broker`."""
    config = RuntimeConfig.from_env(**overrides)
    if resolve and not config.bootstrap_servers:
        from services.broker import discover_bootstrap

        found = discover_bootstrap()
        if found is None:
            raise click.UsageError(
                "no broker: set KAFKA_BOOTSTRAP_SERVERS, pass --bootstrap, or start "
                "`citeflow up` / `citeflow broker` first"
            )
        config = replace(config, bootstrap_servers=found)
    return config


def _run(coro: Any) -> Any:
    """Run a coroutine, turning broker errors into a clean CLI error."""
    from aiokafka.errors import KafkaError

    try:
        return asyncio.run(coro)
    except (KafkaError, LookupError) as exc:
        raise click.ClickException(str(exc)) from None


def _print_json(obj: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(obj) + b"\n")
    sys.stdout.buffer.flush()


# -- broker and topics ---------------------------------------------------------------------


@main.command()
@click.option("--port", type=int, default=None,
              help="Port on 127.0.0.1 [default: 9092 when free, else any free port]")
@click.option("--partitions", type=int, default=None,
              help="Create the pipeline's topics with this many partitions [default: "
                   "CITEFLOW_PARTITIONS or 4]")
@click.option("--no-topics", is_flag=True, help="Do not create the pipeline's topics")
def broker(port: int | None, partitions: int | None, no_topics: bool) -> None:
    """Run the embedded Kafka-compatible broker (Tansu, memory storage) in the foreground.

    Prints its bootstrap address; other citeflow commands find it automatically.
    Stop it with Ctrl-C (all data is lost: memory storage).
    """
    from services.broker import forget_bootstrap, remember_bootstrap, start_broker

    embedded = start_broker(port)
    try:
        remember_bootstrap(embedded.bootstrap)
        if not no_topics:
            config = _config(bootstrap_servers=embedded.bootstrap, partitions=partitions)
            created = _create_topics(config)
            err.print(f"created {len(created)} topics")
        click.echo(embedded.bootstrap)
        err.print(f"[green]broker[/] pid {embedded.pid} on {embedded.bootstrap}; Ctrl-C stops it")
        _wait_for_signal(lambda: not embedded.alive())
    finally:
        forget_bootstrap(embedded.bootstrap)
        embedded.stop()


def _wait_for_signal(done: Callable[[], bool]) -> None:
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


def _stage_inputs(specs: list[str] | None = None) -> list[str]:
    from services.runtime.registry import load_stage, pipeline_stage_names
    from services.stages import SINK_NAMES

    try:
        stages = [load_stage(s) for s in specs or (*pipeline_stage_names(), *SINK_NAMES)]
    except LookupError as exc:
        raise click.BadParameter(str(exc), param_hint="--stage") from None
    return [topic for stage in stages for topic in stage.input_topics]


def _create_topics(config: RuntimeConfig, specs: list[str] | None = None) -> list[str]:
    from services.broker import create_topics, pipeline_topics

    names = pipeline_topics(_stage_inputs(specs), config.topic_prefix)
    return _run(create_topics(config.bootstrap_servers, names, config.partitions))


@main.group()
def topics() -> None:
    """Topics of the pipeline."""


@topics.command("create")
@_config_options()
@click.option("--partitions", type=int, help="Partitions per topic [env CITEFLOW_PARTITIONS; 4]")
@click.option("--stage", "specs", multiple=True, metavar="STAGE",
              help="Create the dead-letter topics of these stages (name or module:attr) "
                   "[default: every pipeline stage]")
def topics_create(specs: tuple[str, ...], **flags: Any) -> None:
    """Create every pipeline topic and the dead-letter topic of every stage input.

    Idempotent: topics that exist are left alone.
    """
    config = _config(**flags)
    created = _create_topics(config, list(specs) or None)
    for name in created:
        click.echo(name)
    err.print(f"{len(created)} topics created on {config.bootstrap_servers}")


# -- one stage -----------------------------------------------------------------------------


@main.command()
@click.argument("stage")
@_config_options(run=True)
def run(stage: str, **flags: Any) -> None:
    """Run one stage consumer (what a container runs) until SIGTERM/SIGINT.

    STAGE is a pipeline stage name (ingest, scoring, citations, spans, formatting) or an
    import path `module:attr` of a Stage (or of a function returning one).
    On SIGTERM it stops fetching, finishes the in-flight batch, commits and leaves the
    group. Logs are JSON lines on stderr.
    """
    from services.runtime.process import run_stage
    from services.runtime.registry import load_stage

    try:
        loaded = load_stage(stage)
    except LookupError as exc:
        raise click.BadParameter(str(exc), param_hint="STAGE") from None
    sys.exit(run_stage(loaded, _config(**flags)))


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
@_config_options()
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
                   "or JSON lines) and print their formatted results on stdout; then keep "
                   "serving. With the gateway they go through POST /v1/answers?wait= with a "
                   "new key of the demo tenant, else straight to the topic")
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
    from services.stages import SINK_NAMES

    with_gateway = gateway and not specs
    stage_specs = list(specs) or [*pipeline_stage_names(), *(SINK_NAMES if gateway else ())]
    counts = _parse_replicas(replicas)
    unknown = set(counts) - set(stage_specs)
    if unknown:
        raise click.BadParameter(f"unknown stage(s): {', '.join(sorted(unknown))}",
                                 param_hint="--replicas")
    config = _config(resolve=False, **flags)
    embedded = None
    if not config.bootstrap_servers:
        embedded = start_broker()
        remember_bootstrap(embedded.bootstrap)
        config = replace(config, bootstrap_servers=embedded.bootstrap)
        err.print(f"[green]embedded broker[/] on {embedded.bootstrap} (pid {embedded.pid})")
    supervisor = None
    try:
        _run(_wait_ready(config.bootstrap_servers))
        created = _create_topics(config, stage_specs)
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
            http = GatewaySettings.from_env(host=http_host, port=http_port)
            base = f"http://{http.host}:{http.port}"
            children.append(demo.gateway_child(env, http.host, http.port,
                                               log_dir / "gateway-0.log"))
        supervisor = Supervisor(children)
        supervisor.start()
        if base is not None:
            # In the background, so dying processes are restarted while we wait.
            lines = _answer_lines(submit_file.read()) if submit_file is not None else []
            threading.Thread(target=_gateway_ready, daemon=True, args=(base, lines)).start()
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


def _gateway_ready(base: str, lines: list[str]) -> None:
    """Once the gateway is ready: a demo key, the demo answers through it, the URLs."""
    from services.cli import demo

    if not demo.wait_ready(base):
        err.print(f"[red]gateway not ready at {base}[/] (see its log)")
        return
    key = demo.create_demo_key()
    if lines:
        demo.submit_demo(base, key, lines)
    else:
        demo.print_access(base, key)


def _metrics_env(config: RuntimeConfig, index: int) -> dict[str, str]:
    """Each process its own metrics port: CITEFLOW_METRICS_PORT + its index."""
    if not config.metrics_port:
        return {}
    return {"CITEFLOW_METRICS_PORT": str(config.metrics_port + index)}


async def _wait_ready(bootstrap: str) -> None:
    from services.broker import wait_for_broker

    await wait_for_broker(bootstrap)


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
    """Publish answers, then print each one's formatted result as it arrives (the event as
    JSON on stdout, a readable summary on stderr)."""
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
                _print_json(event)
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
        _run(go())
    except click.ClickException as exc:
        err.print(f"[red]demo failed:[/] {exc.message}")


# -- publishing and subscribing ------------------------------------------------------------


@main.command()
@click.argument("file", type=click.File("r"))
@_config_options()
@click.option("--raw", is_flag=True,
              help="Publish each line unchanged as the message value (an envelope, or bad "
                   "input to test rejections) instead of wrapping it in an event")
def submit(file: Any, raw: bool, **flags: Any) -> None:
    """Publish answers to answers.submitted, as an upstream service would.

    FILE (or - for stdin) holds one answer.submitted data object (SPEC §3) per line;
    each is validated, wrapped in a CloudEvents envelope and keyed by its answer_id.
    Invalid lines are reported on stderr and make the exit status 1.
    """
    from services.runtime.operations import answer_records
    from services.runtime.topic_io import publish

    config = _config(**flags)
    records, bad = answer_records(file.read().splitlines(), raw=raw)
    for item in bad:
        _print_json({"line": item.line, "answer_id": item.answer_id, "error": item.error})
    sent = _run(publish(config, records)) if records else 0
    err.print(f"published {sent} answer(s) to {config.physical('answers.submitted')}")
    if bad:
        sys.exit(1)


@main.command()
@_config_options()
@click.option("--topic", default=ANSWERS_FORMATTED, show_default=True, help="Topic to follow")
@click.option("--from-beginning", is_flag=True, help="Start at the oldest record, not new ones")
@click.option("--count", type=int, help="Stop after N records")
@click.option("--timeout", type=float, help="Stop after this many seconds without a record")
@click.option("--data-only", is_flag=True, help="Print only each event's `data`")
def tail(topic: str, from_beginning: bool, count: int | None, timeout: float | None,
         data_only: bool, **flags: Any) -> None:
    """Follow a topic (default answers.formatted) and print each event as a JSON line,
    as a dashboard would. Values that are not JSON are printed as a JSON string."""
    from services.runtime.operations import tail as tail_topic

    config = _config(**flags)

    def show(record: Any) -> None:
        try:
            value = orjson.loads(record.value)
        except orjson.JSONDecodeError:
            value = (record.value or b"").decode("utf-8", "replace")
        if data_only and isinstance(value, dict):
            value = value.get("data")
        _print_json(value)

    _run(tail_topic(config, topic, show, from_beginning=from_beginning, count=count,
                    timeout=timeout))


# -- replay and dead letters ---------------------------------------------------------------


def _range_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed([
        click.option("--partition", type=int, help="Only this partition"),
        click.option("--start", type=int, help="First offset (inclusive)"),
        click.option("--end", type=int, help="Last offset (exclusive)"),
    ]):
        fn = option(fn)
    return fn


@main.command()
@click.argument("topic")
@_config_options()
@_range_options
@click.option("--to", "target", help="Publish to this topic instead")
def replay(topic: str, partition: int | None, start: int | None, end: int | None,
           target: str | None, **flags: Any) -> None:
    """Re-publish records of TOPIC for re-processing.

    Records of a dead-letter topic (*.dlq) go back to the topic they came from (their
    headers say which); others are published to TOPIC again (or to --to). Keys, values
    and event headers are kept, so event ids stay the same.
    """
    from services.runtime.operations import replay as replay_topic
    from services.runtime.topic_io import Range

    config = _config(**flags)
    counts = _run(replay_topic(config, topic, Range(partition, start, end), target))
    for name, n in counts.items():
        click.echo(f"{n}\t{name}")
    err.print(f"replayed {sum(counts.values())} record(s)")


@main.group()
def dlq() -> None:
    """Dead-letter topics: inspect and drain."""


@dlq.command("list")
@click.argument("topics", nargs=-1)
@_config_options()
@_range_options
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of a table")
def dlq_list(topics: tuple[str, ...], partition: int | None, start: int | None,
             end: int | None, as_json: bool, **flags: Any) -> None:
    """List dead letters with why they failed (default: every *.dlq topic)."""
    from services.runtime.operations import dead_letters, dlq_topics
    from services.runtime.topic_io import Range

    config = _config(**flags)
    names = list(topics) or _run(dlq_topics(config))
    table = Table("topic", "offset", "key", "stage", "error", "attempts", "from")
    for name in names:
        for record, info in _run(dead_letters(config, name, Range(partition, start, end))):
            key = (record.key or b"").decode("utf-8", "replace")
            row = {
                "topic": name, "partition": record.partition, "offset": record.offset,
                "key": key, "size": len(record.value or b""),
                **({} if info is None else {
                    "stage": info.stage, "error_type": info.error_type,
                    "error_code": info.error_code, "error_message": info.error_message,
                    "attempts": info.attempts, "original_topic": info.original_topic,
                    "original_partition": info.original_partition,
                    "original_offset": info.original_offset,
                }),
            }
            if as_json:
                _print_json(row)
            elif info is not None:
                table.add_row(f"{name}[{record.partition}]", str(record.offset), key,
                              info.stage, f"{info.error_type}: {info.error_message}",
                              str(info.attempts),
                              f"{info.original_topic}[{info.original_partition}]"
                              f"@{info.original_offset}")
    if not as_json:
        Console().print(table)


@dlq.command("drain")
@click.argument("topic")
@_config_options()
@click.option("--group-id", default=None,
              help="Group remembering what was drained [default: citeflow-dlq-drain]")
def dlq_drain(topic: str, group_id: str | None, **flags: Any) -> None:
    """Re-publish the dead letters of TOPIC (a *.dlq topic) to their original topics.

    Each letter is drained once: progress is committed in a consumer group after the
    broker acknowledged the copies.
    """
    from services.runtime.operations import drain

    config = _config(**flags)
    group = group_id or f"{config.topic_prefix}citeflow-dlq-drain"
    counts = _run(drain(config, topic, group))
    for name, n in counts.items():
        click.echo(f"{n}\t{name}")
    err.print(f"drained {sum(counts.values())} dead letter(s) from {topic}")


# -- benchmark -----------------------------------------------------------------------------


@bench.command("e2e")
@click.option("--answers", "count", type=int, default=2000, show_default=True,
              help="Answers per throughput run")
@click.option("--latency-answers", type=int, default=400, show_default=True,
              help="Answers per latency run (sent at half a side's own throughput; the "
                   "pipeline's also at half the raw throughput)")
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True,
              help="Run both sides this many times, alternating; the medians are the result")
@click.option("--partitions", type=int, default=2, show_default=True,
              help="Partitions per topic")
@click.option("--bootstrap", default=None, metavar="HOST:PORT",
              help="Use this broker instead of starting the embedded one")
@click.option("--stage", "specs", multiple=True, metavar="STAGE",
              help="Benchmark these stages (name or module:attr, in flow order) instead of "
                   "the five pipeline stages")
@click.option("--stages", "preset", type=click.Choice(["pipeline", "toy", "codec"]),
              default="pipeline", show_default=True,
              help="pipeline: the five real stages; toy: five hops that only decode, validate "
                   "and re-encode the input (the runtime's own cost); codec: five hops that "
                   "decode each hop's real input event and publish its real output event, no "
                   "logic (runtime plus codec at the real sizes); see services.bench.toy")
@click.option("--raw-sizes", type=click.Choice(["pipeline", "input"]), default="pipeline",
              show_default=True,
              help="pipeline: each raw hop pads its output to the size of the pipeline's event "
                   "after that hop (same message sizes); input: raw hops pass records on "
                   "unchanged")
def bench_e2e(count: int, latency_answers: int, repeat: int, partitions: int,
              bootstrap: str | None, specs: tuple[str, ...], preset: str,
              raw_sizes: str) -> None:
    """End to end over the broker: raw aiokafka pass-through over five hops (five
    processes) against the five stage processes, same answers; prints both throughputs,
    the ratio (target >= 0.5) and p50/p99 latency at each side's half load (target: the
    pipeline's p50 within 1.5x of raw's) and at half the raw rate."""
    from services.bench.e2e import run_benchmark

    if specs and preset != "pipeline":
        raise click.UsageError(f"--stage and --stages {preset} are exclusive")
    if preset != "pipeline":
        from services.bench.toy import CODEC_SPECS, SPECS

        specs = tuple(SPECS if preset == "toy" else CODEC_SPECS)
    run_benchmark(count=count, latency_count=latency_answers, partitions=partitions,
                  bootstrap=bootstrap, console=err, out=click.echo,
                  stage_specs=list(specs) or None, raw_sizes=raw_sizes, repeat=repeat)


@bench.command("idle")
@click.option("--fetch-max-wait", "waits", type=click.IntRange(min=1), multiple=True,
              metavar="MS", help="Fetch long-poll bounds to compare [default: 20, the "
                                 "configured one, 100]")
@click.option("--idle-seconds", type=float, default=10.0, show_default=True,
              help="Length of the window with no traffic")
@click.option("--rate", type=float, default=10.0, show_default=True,
              help="Answers per second of the low-rate latency run")
@click.option("--answers", "count", type=int, default=60, show_default=True,
              help="Answers in the low-rate latency run")
@click.option("--partitions", type=int, default=2, show_default=True)
def bench_idle(waits: tuple[int, ...], idle_seconds: float, rate: float, count: int,
               partitions: int) -> None:
    """The five stages and the embedded broker with no traffic: CPU they burn idle, and
    single-answer latency at a low rate, for each fetch long-poll bound (the trade-off
    behind CITEFLOW_FETCH_MAX_WAIT_MS)."""
    from services.bench.idle import run_idle_benchmark

    configured = RuntimeConfig.from_env().fetch_max_wait_ms
    chosen = list(waits) or sorted({20, configured, 100})
    results = run_idle_benchmark(chosen, idle_s=idle_seconds, rate=rate, count=count,
                                 partitions=partitions, progress=err.print)
    table = Table(title=f"idle for {idle_seconds:g} s, then {count} answers at {rate:g}/s")
    for column in ("fetch wait ms", "5 stages, cores idle", "broker, cores idle",
                   "latency p50 ms", "latency p90 ms"):
        table.add_column(column)
    for r in results:
        mark = " (configured)" if r.fetch_max_wait_ms == configured else ""
        table.add_row(f"{r.fetch_max_wait_ms}{mark}", f"{r.stages_cores:.3f}",
                      f"{r.broker_cores:.3f}", f"{r.latency_p50_ms:.1f}",
                      f"{r.latency_p90_ms:.1f}")
        click.echo(f"fetch_max_wait_ms={r.fetch_max_wait_ms} idle_cores_stages="
                   f"{r.stages_cores:.3f} idle_cores_broker={r.broker_cores:.3f} "
                   f"latency_p50={r.latency_p50_ms:.1f}ms latency_p90={r.latency_p90_ms:.1f}ms")
    err.print(table)
