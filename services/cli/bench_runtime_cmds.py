"""`citeflow bench e2e` and `bench idle`: the pipeline's stage processes on a broker."""

from __future__ import annotations


import click
from rich.table import Table

from services.cli import bench
from services.cli.options import err
from services.runtime.config import RuntimeConfig


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
              help="pipeline: the five real stages; toy: five hops that only decode "
                   "and re-encode the input (the runtime's own cost); codec: five hops that "
                   "decode each hop's real input event and publish its real output event, no "
                   "logic (runtime plus codec at the real sizes); see services.bench.toy")
@click.option("--raw-sizes", type=click.Choice(["pipeline", "input"]), default="pipeline",
              show_default=True,
              help="pipeline: each raw hop pads its output to the size of the pipeline's event "
                   "after that hop (same message sizes); input: raw hops pass records on "
                   "unchanged")
@click.option("--tls", is_flag=True,
              help="Then run both sides again with every client over mutual TLS (the "
                   "embedded broker behind a stunnel TLS terminator) and print the ratio "
                   "over TLS beside the plaintext one")
def bench_e2e(count: int, latency_answers: int, repeat: int, partitions: int,
              bootstrap: str | None, specs: tuple[str, ...], preset: str,
              raw_sizes: str, tls: bool) -> None:
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
                  stage_specs=list(specs) or None, raw_sizes=raw_sizes, repeat=repeat,
                  tls=tls)


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


@bench.command("groups")
@click.option("--runs", type=click.IntRange(min=1), default=3, show_default=True,
              help="Joins and failovers per setting; the medians are printed")
@click.option("--partitions", type=int, default=4, show_default=True)
@click.option("--bootstrap", default=None, metavar="HOST:PORT",
              help="Use this broker instead of starting the embedded one")
def bench_groups(runs: int, partitions: int, bootstrap: str | None) -> None:
    """Consumer group join time (a fresh member to its first assignment), failover time
    (SIGKILL of one of two members to the survivor owning every partition) and restart time
    (SIGKILL and an immediate restart of that member to it holding a partition again), under
    the runtime's group settings (CITEFLOW_SESSION_TIMEOUT_MS, CITEFLOW_HEARTBEAT_INTERVAL_MS)
    beside aiokafka's defaults and beside the runtime's with static membership
    (CITEFLOW_GROUP_INSTANCE_ID), measured in the same run."""
    import asyncio
    import uuid

    from rich.console import Console

    from services.bench.groups import measure
    from services.broker import create_topics, free_port, start_broker

    broker = None if bootstrap else start_broker(free_port())
    address = bootstrap or (broker.bootstrap if broker else "")
    try:
        config = RuntimeConfig.from_env(bootstrap_servers=address)
        topic = f"bench-groups-{uuid.uuid4().hex[:8]}"
        asyncio.run(create_topics(address, [topic], partitions))
        found = asyncio.run(measure(config, topic, partitions, runs))
    finally:
        if broker is not None:
            broker.stop()
    table = Table("settings", "session ms", "heartbeat ms", "join s (median)",
                  "failover s (median)", "restart s (median)")
    for row in found:
        table.add_row(row.name, str(row.session_timeout_ms), str(row.heartbeat_interval_ms),
                      f"{row.join_s:.2f}", f"{row.failover_s:.2f}", f"{row.restart_s:.2f}")
    Console().print(table)


@bench.command("judging")
@click.option("--answers", "count", type=click.IntRange(min=1), default=40, show_default=True,
              help="Answers per run, sent one at a time")
@click.option("--rate", type=float, default=4.0, show_default=True,
              help="Answers per second")
@click.option("--model-ms", type=float, default=500.0, show_default=True,
              help="How long the fake judge takes to answer a request")
@click.option("--partitions", type=int, default=2, show_default=True)
def bench_judging(count: int, rate: float, model_ms: float, partitions: int) -> None:
    """The judging stage's latency on the embedded broker, with the tests' fake
    OpenAI-compatible server: submit to the lexical result without and with a judge (median,
    p99), and the lexical result to the refinement beside the model's time (run from a
    checkout)."""
    from services.bench.judging import run_benchmark

    try:
        found = run_benchmark(count, rate, model_ms, partitions, err.print)
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from None
    table = Table(f"{found.answers} answers at {found.rate:g}/s, model {found.model_ms:.0f} ms",
                  "median ms", "p99 ms", "target")
    table.add_row("submit -> lexical result, no judge",
                  f"{found.lexical_without_judge.median_ms:.1f}",
                  f"{found.lexical_without_judge.p99_ms:.1f}", "-")
    table.add_row("submit -> lexical result, judge running",
                  f"{found.lexical_with_judge.median_ms:.1f}",
                  f"{found.lexical_with_judge.p99_ms:.1f}", "unchanged")
    table.add_row("lexical result -> refinement", f"{found.refinement.median_ms:.1f}",
                  f"{found.refinement.p99_ms:.1f}", "-")
    table.add_row("refinement minus the model's time", f"{found.overhead.median_ms:.1f}",
                  f"{found.overhead.p99_ms:.1f}", "<= 50")
    err.print(table)
