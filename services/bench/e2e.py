"""`citeflow bench e2e`: the pipeline over the broker against raw aiokafka pass-through.

Both runs use the same answers, the same broker, the same number of hops and one OS
process per hop. The raw hop consumes a batch, produces it, waits for the acknowledgements
and commits: the least any at-least-once hop can do. Its output is the input padded (JSON
whitespace) to the size the pipeline's event has after the same hop, so both move the same
message sizes; `--raw-sizes input` passes records on unchanged instead.

Latency (p50 "at half load") is measured two ways, both printed: each side at half of its
own measured throughput (the usual meaning of half load: each system at 50% utilisation),
and the pipeline also at half the raw throughput (one offered rate for both; above the
pipeline's capacity whenever the throughput ratio is below 0.5, so then it measures queueing).
`--repeat` runs both sides several times, alternating, and reports the median ratios: on a
shared 2-core machine one run's ratio swings by a quarter or more.

`--stages toy` runs five hops that only decode and re-encode (services/bench/toy.py)
instead of the real stages: the gap to raw is then the runtime's own cost. Both sides also
report the CPU time of their hop processes and of the embedded broker per answer, which is
steadier than throughput on a shared 2-core machine, and each hop's CPU is split into
decode, logic and encode measured in this process at the same event sizes
(services/bench/hop_costs.py), the rest being the runtime and the Kafka client.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from services.bench.hop_costs import HopCost, hop_costs
from services.bench.tls import start_tls_broker
from services.bench.workload import bench_answer
from services.broker import create_topics, free_port, pipeline_topics, start_broker
from services.runtime.config import RuntimeConfig, to_env
from services.runtime.connection import KafkaConnection
from services.runtime.dead_letters import Record
from services.runtime.kafka import make_consumer, make_producer
from services.runtime.loop import output_record
from services.runtime.operations import answer_records
from services.runtime.registry import load_stage, pipeline_stage_names
from services.runtime.stage import Message, Stage
from services.runtime.supervisor import die_with_parent, stage_command
from services.runtime.topic_io import partitions_of

WARMUP = 20
# About 5-8 KB per encoded answer.submitted event.
ANSWER_SHAPE: dict[str, Any] = {"words": 200, "citations": 10, "verbatim_units": 4, "sources": 3, "chunks_per_source": 1,
                    "chunk_chars": 600}


@dataclass(frozen=True)
class Latency:
    """Latency of answers sent at a steady rate."""

    rate: float
    p50_ms: float
    p99_ms: float


@dataclass(frozen=True)
class RunResult:
    """One side of the benchmark."""

    throughput: float
    # At half of this side's own throughput.
    half_load: Latency
    # At an offered rate named by the caller (the pipeline: half the raw throughput).
    at_rate: Latency | None = None
    # CPU time of each hop process per answer during the throughput run, in flow order.
    hop_cpu_each_ms: tuple[float, ...] = ()
    # CPU time of the embedded broker per answer during the throughput run (0: external).
    broker_cpu_ms: float = 0.0

    @property
    def hop_cpu_ms(self) -> float:
        """CPU time of all hop processes together per answer."""
        return sum(self.hop_cpu_each_ms)


@dataclass(frozen=True)
class Comparison:
    """One raw run and one pipeline run, measured back to back."""

    raw: RunResult
    pipeline: RunResult

    @property
    def throughput_ratio(self) -> float:
        return self.pipeline.throughput / self.raw.throughput

    @property
    def half_load_p50_ratio(self) -> float:
        return self.pipeline.half_load.p50_ms / self.raw.half_load.p50_ms

    @property
    def same_rate_p50_ratio(self) -> float:
        assert self.pipeline.at_rate is not None
        return self.pipeline.at_rate.p50_ms / self.raw.half_load.p50_ms


def answers(prefix: str, count: int) -> list[Record]:
    """`count` encoded answer.submitted records with distinct ids."""
    data = [orjson.dumps(bench_answer(f"{prefix}-{i}", seed=i, **ANSWER_SHAPE)).decode()
            for i in range(count)]
    records, bad = answer_records(data)
    assert not bad, bad
    return records


# -- the raw hop (runs in its own process) ---------------------------------------------------


async def passthrough(config: RuntimeConfig, source: str, target: str, group: str,
                      size: int = 0) -> None:
    """Consume `source`, produce every record to `target` (its value padded to `size` bytes
    when shorter), commit after the acknowledgements; until SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    consumer = make_consumer(config, source, group_id=group)
    producer = make_producer(config)
    await producer.start()
    await consumer.start()
    try:
        while not stop.is_set():
            batches = await consumer.getmany(timeout_ms=200, max_records=config.batch_size)
            futures = []
            for records in batches.values():
                for r in records:
                    value = r.value
                    if len(value) < size:
                        value += b" " * (size - len(value))
                    futures.append(await producer.send(target, value, key=r.key,
                                                       headers=list(r.headers or ())))
            await asyncio.gather(*futures)
            if batches:
                await consumer.commit({tp: rs[-1].offset + 1 for tp, rs in batches.items()})
    finally:
        await consumer.stop()
        await producer.stop()


# -- the measuring side ----------------------------------------------------------------------


class Collector:
    """Follows the last topic and records when each key first arrives."""

    def __init__(self, config: RuntimeConfig, topic: str) -> None:
        self.config = config
        self.topic = topic
        self.arrived: dict[bytes, float] = {}
        self.ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        consumer = make_consumer(self.config, group_id=None)
        await consumer.start()
        try:
            tps = await partitions_of(consumer, self.topic)
            consumer.assign(tps)
            await consumer.seek_to_end(*tps)
            for tp in tps:
                await consumer.position(tp)
            self.ready.set()
            while True:
                batches = await consumer.getmany(timeout_ms=100)
                now = time.perf_counter()
                for records in batches.values():
                    for record in records:
                        if record.key is not None:
                            self.arrived.setdefault(record.key, now)
        finally:
            await consumer.stop()

    async def __aenter__(self) -> Collector:
        self._task = asyncio.create_task(self._run())
        await self.ready.wait()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass

    async def wait_for(self, keys: set[bytes], timeout: float = 600.0) -> None:
        deadline = time.perf_counter() + timeout
        while not keys <= self.arrived.keys():
            if self._task is not None and self._task.done():
                self._task.result()
            if time.perf_counter() > deadline:
                missing = len(keys - self.arrived.keys())
                raise RuntimeError(f"{missing} answers never arrived on {self.topic}")
            await asyncio.sleep(0.01)


async def send_all(config: RuntimeConfig, topic: str, records: list[Record],
                   rate: float | None) -> dict[bytes, float]:
    """Send records (at `rate` per second, or as fast as possible); returns send times."""
    producer = make_producer(config)
    await producer.start()
    sent: dict[bytes, float] = {}
    futures = []
    try:
        start = time.perf_counter()
        for i, record in enumerate(records):
            if rate:
                delay = start + i / rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
            assert record.key is not None
            sent[record.key] = time.perf_counter()
            futures.append(await producer.send(topic, record.value, key=record.key,
                                               headers=record.headers))
        await asyncio.gather(*futures)
    finally:
        await producer.stop()
    return sent


async def paced_latencies(config: RuntimeConfig, first: str, collector: Collector,
                          records: list[Record], rate: float) -> list[float]:
    """Send `records` to `first` at `rate` per second; each one's latency until the collector
    saw it, in ms, sorted."""
    sent = await send_all(config, first, records, rate)
    await collector.wait_for(set(sent))
    return sorted((collector.arrived[key] - sent[key]) * 1000 for key in sent)


def percentile(ordered: list[float], q: float) -> float:
    """The `q` quantile of sorted values (the nearest rank at or below)."""
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


async def measure(config: RuntimeConfig, first: str, last: str, tag: str, count: int,
                  latency_count: int, rate: float | None,
                  progress: Callable[[str], None],
                  cpu: Callable[[], list[float]] = list,
                  broker_cpu: Callable[[], float] = lambda: 0.0) -> RunResult:
    """Throughput of `count` answers sent at once, then latency at half the measured
    throughput and, when `rate` is given, at `rate` too."""
    async with Collector(config, last) as collector:
        warm = answers(f"{tag}-warm", WARMUP)
        await send_all(config, first, warm, None)
        await collector.wait_for({r.key for r in warm if r.key})
        progress(f"{tag}: warmed up; throughput run of {count} answers")
        batch = answers(f"{tag}-tp", count)
        cpu_before, broker_before = cpu(), broker_cpu()
        sent = await send_all(config, first, batch, None)
        keys = {r.key for r in batch if r.key}
        await collector.wait_for(keys)
        hop_cpu_each_ms = tuple((after - before) * 1000 / count
                                for before, after in zip(cpu_before, cpu(), strict=True))
        broker_cpu_ms = (broker_cpu() - broker_before) * 1000 / count
        elapsed = max(collector.arrived[k] for k in keys) - min(sent.values())
        throughput = count / elapsed

        async def latency_at(paced_rate: float, name: str) -> Latency:
            progress(f"{tag}: latency run at {paced_rate:.1f}/s ({name})")
            paced = answers(f"{tag}-lat-{name}", latency_count)
            latencies = await paced_latencies(config, first, collector, paced, paced_rate)
            return Latency(paced_rate, statistics.median(latencies), percentile(latencies, 0.99))

        progress(f"{tag}: {throughput:.1f} answers/s")
        half_load = await latency_at(throughput / 2, "half-load")
        at_rate = await latency_at(rate, "given-rate") if rate else None
    return RunResult(throughput, half_load, at_rate, hop_cpu_each_ms, broker_cpu_ms)


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time of these processes so far (Linux /proc; else 0)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


class Processes:
    """Hop processes started by the benchmark, stopped by pid."""

    def __init__(self, config: RuntimeConfig, log_dir: Path) -> None:
        self.env = {**os.environ, **to_env(config)}
        self.log_dir = log_dir
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, argv: list[str], name: str) -> None:
        with open(self.log_dir / f"{name}.log", "ab") as log:
            self.started.append(subprocess.Popen(
                argv, env=self.env, stdout=subprocess.DEVNULL, stderr=log,
                start_new_session=True, preexec_fn=die_with_parent,
            ))

    def cpu_seconds(self) -> float:
        """User plus system CPU time the running hop processes used so far."""
        return sum(self.cpu_seconds_each())

    def cpu_seconds_each(self) -> list[float]:
        """User plus system CPU time each hop process (in start order) used so far."""
        return [cpu_seconds([p.pid]) for p in self.started]

    def stop(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.started:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def run_benchmark(*, count: int, latency_count: int, partitions: int, bootstrap: str | None,
                  console: Console, out: Callable[[str], None],
                  stage_specs: list[str] | None = None,
                  raw_sizes: str = "pipeline", repeat: int = 1,
                  tls: bool = False) -> list[Comparison]:
    """Run both sides `repeat` times (alternating, on one broker) and print the comparison;
    with `tls`, then again with every client over mutual TLS to the embedded broker behind
    a TLS terminator (services/bench/tls.py), and both medians side by side."""
    specs = stage_specs or list(pipeline_stage_names())
    stages = [load_stage(s) for s in specs]
    run_id = uuid.uuid4().hex[:8]
    log_dir = Path(os.environ.get("CITEFLOW_BENCH_LOGS", f"/tmp/citeflow-bench-{run_id}"))
    log_dir.mkdir(parents=True, exist_ok=True)
    sample = answers("size", 1)[0]
    sizes = hop_sizes(stages, sample) if raw_sizes == "pipeline" else [0] * len(stages)
    costs = hop_costs(stages, answers("costs", 50))
    broker = None if bootstrap else start_broker(free_port())
    transports = [Transport("plaintext", bootstrap or (broker.bootstrap if broker else ""),
                            [broker.pid] if broker is not None else [], None)]
    runs: dict[str, list[Comparison]] = {}
    try:
        if tls:
            tls_broker = start_tls_broker(log_dir / "tls")
            transports.append(Transport(
                "TLS", tls_broker.bootstrap, tls_broker.pids,
                RuntimeConfig.from_env(tls_broker.client_env()).kafka, tls_broker.stop))
        for transport in transports:
            console.print(f"{transport.name}: broker {transport.bootstrap}; {len(stages)} hops; "
                          f"answer.submitted event {len(sample.value)} bytes; raw hop output "
                          f"sizes {sizes if raw_sizes == 'pipeline' else 'unchanged'}; "
                          f"{partitions} partitions; logs in {log_dir}")
            runs[transport.name] = []
            for i in range(repeat):
                tag = f"{run_id}-{transport.name.lower()}-{i}"
                raw = _raw_side(transport.bootstrap, tag, sizes, count, latency_count,
                                partitions, log_dir, console, transport.pids, transport.kafka)
                pipe = _pipeline_side(transport.bootstrap, tag, specs, stages, count,
                                      latency_count, partitions, raw.throughput / 2, log_dir,
                                      console, transport.pids, transport.kafka)
                runs[transport.name].append(Comparison(raw, pipe))
    finally:
        for transport in transports:
            if transport.stop is not None:
                transport.stop()
        if broker is not None:
            broker.stop()
    for name, measured in runs.items():
        if len(runs) > 1:
            out(f"-- {name}")
        _report(measured, costs, count, console, out)
    if len(runs) > 1:
        median = statistics.median
        out("throughput ratio (pipeline / raw), median of each: " + ", ".join(
            f"{name} {median(r.throughput_ratio for r in measured):.2f}"
            for name, measured in runs.items()))
    return runs["plaintext"]


@dataclass
class Transport:
    """One way the clients reach the broker: its address, the broker-side pids (for CPU
    figures), the connection settings (None: the environment's) and how to stop it."""

    name: str
    bootstrap: str
    pids: list[int]
    kafka: KafkaConnection | None
    stop: Callable[[], None] | None = None


def _report(runs: list[Comparison], costs: list[HopCost], count: int, console: Console,
            out: Callable[[str], None]) -> None:
    names = [cost.name for cost in costs]
    table = Table(title=f"end to end, {len(names)} hops, {count} answers per throughput run")
    for column in ("run", "answers/s", "p50 / p99 ms at own half load",
                   "p50 / p99 ms at half raw rate", "hop CPU ms/answer",
                   "broker CPU ms/answer"):
        table.add_column(column)
    for i, run in enumerate(runs, 1):
        for name, result in (("raw pass-through", run.raw), ("citeflow pipeline", run.pipeline)):
            same = result.at_rate or (result.half_load if result is run.raw else None)
            table.add_row(f"{i} {name}", f"{result.throughput:.1f}",
                          f"{result.half_load.p50_ms:.1f} / {result.half_load.p99_ms:.1f}",
                          f"{same.p50_ms:.1f} / {same.p99_ms:.1f}" if same else "-",
                          f"{result.hop_cpu_ms:.2f}", f"{result.broker_cpu_ms:.2f}")
    console.print(table)
    for i, run in enumerate(runs, 1):
        raw, pipe = run.raw, run.pipeline
        out(f"run {i}: raw_throughput={raw.throughput:.1f}/s "
            f"pipeline_throughput={pipe.throughput:.1f}/s ratio={run.throughput_ratio:.2f}; "
            f"p50 at own half load raw={raw.half_load.p50_ms:.1f}ms "
            f"pipeline={pipe.half_load.p50_ms:.1f}ms ratio={run.half_load_p50_ratio:.2f}; "
            f"p50 at half raw rate pipeline={pipe.at_rate.p50_ms if pipe.at_rate else 0:.1f}ms "
            f"ratio={run.same_rate_p50_ratio:.2f}; hop CPU raw={raw.hop_cpu_ms:.2f}ms "
            f"pipeline={pipe.hop_cpu_ms:.2f}ms; broker CPU raw={raw.broker_cpu_ms:.2f}ms "
            f"pipeline={pipe.broker_cpu_ms:.2f}ms per answer")
    median = statistics.median
    # Where the pipeline's CPU goes: each stage process beside the raw hop it replaces, split
    # into the parts measured warm in this process; the rest is the runtime and the Kafka
    # client, and the same stage work running colder in a process among seven on the cores.
    for i, cost in enumerate(costs):
        raw_ms = median(r.raw.hop_cpu_each_ms[i] for r in runs)
        pipe_ms = median(r.pipeline.hop_cpu_each_ms[i] for r in runs)
        out(f"hop {i + 1} {cost.name}: CPU ms/answer raw={raw_ms:.3f} pipeline={pipe_ms:.3f} "
            f"(median of {len(runs)}): decode={cost.decode_ms:.3f} logic={cost.logic_ms:.3f} "
            f"encode={cost.encode_ms:.3f} rest={pipe_ms - cost.in_process_ms:.3f}"
            f"; event {cost.in_bytes} -> {cost.out_bytes} bytes")
    out(f"median of {len(runs)}: throughput ratio="
        f"{median(r.throughput_ratio for r in runs):.2f} (target >= 0.5); "
        f"p50 ratio at each side's half load="
        f"{median(r.half_load_p50_ratio for r in runs):.2f} (target <= 1.5); "
        f"p50 ratio at half the raw rate={median(r.same_rate_p50_ratio for r in runs):.2f}")


def _config(bootstrap: str, prefix: str, partitions: int,
            kafka: KafkaConnection | None = None) -> RuntimeConfig:
    config = RuntimeConfig.from_env(bootstrap_servers=bootstrap, topic_prefix=prefix,
                                    partitions=partitions)
    return config if kafka is None else replace(config, kafka=kafka)


def hop_sizes(stages: list[Stage], sample: Record) -> list[int]:
    """The size of the event each stage publishes for `sample`, encoded as the runtime does."""
    sizes = []
    value = sample.value
    for stage in stages:
        message = Message(topic=stage.input_topics[0], value=value, key=sample.key)
        output = next(o for o in stage.handle(message) if o.topic == stage.output_topics[0])
        value = output_record(stage.name, output).value
        sizes.append(len(value))
    return sizes


def _raw_side(bootstrap: str, run_id: str, sizes: list[int], count: int, latency_count: int,
              partitions: int, log_dir: Path, console: Console,
              broker_pids: list[int], kafka: KafkaConnection | None = None) -> RunResult:
    config = _config(bootstrap, f"raw-{run_id}.", partitions, kafka)
    hops = len(sizes)
    topics = [config.physical(f"hop{i}") for i in range(hops + 1)]
    asyncio.run(create_topics(config, topics, partitions))
    processes = Processes(config, log_dir)
    try:
        for i in range(hops):
            processes.start([sys.executable, "-m", "services.bench.e2e", topics[i],
                             topics[i + 1], f"{config.topic_prefix}hop{i}", str(sizes[i])],
                            f"raw-hop{i}")
        return asyncio.run(measure(config, topics[0], topics[-1], "raw", count, latency_count,
                                   None, console.print, processes.cpu_seconds_each,
                                   lambda: cpu_seconds(broker_pids)))
    finally:
        processes.stop()


def _pipeline_side(bootstrap: str, run_id: str, specs: list[str], stages: list[Any],
                   count: int, latency_count: int, partitions: int, rate: float,
                   log_dir: Path, console: Console, broker_pids: list[int],
                   kafka: KafkaConnection | None = None) -> RunResult:
    config = _config(bootstrap, f"pipe-{run_id}.", partitions, kafka)
    inputs = [t for stage in stages for t in stage.input_topics]
    asyncio.run(create_topics(config, pipeline_topics(inputs, config.topic_prefix),
                              partitions))
    processes = Processes(config, log_dir)
    try:
        for spec, stage in zip(specs, stages, strict=True):
            processes.start(stage_command(spec), f"pipe-{stage.name}")
        first = config.physical(stages[0].input_topics[0])
        last = config.physical(stages[-1].output_topics[0])
        return asyncio.run(measure(config, first, last, "pipeline", count, latency_count,
                                   rate, console.print, processes.cpu_seconds_each,
                                   lambda: cpu_seconds(broker_pids)))
    finally:
        processes.stop()


if __name__ == "__main__":
    # A raw hop process: python -m services.bench.e2e SOURCE TARGET GROUP SIZE
    source, target, group, size = sys.argv[1:5]
    asyncio.run(passthrough(RuntimeConfig.from_env(), source, target, group, size=int(size)))
