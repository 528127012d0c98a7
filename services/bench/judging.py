"""`citeflow bench judging`: the judging stage's latency targets, on the embedded broker with
the tests' fake OpenAI-compatible server (a real socket and the real client path; it answers
every request after a fixed model time). Run from a checkout: the fake server is a test
fixture (tests/services/judging/fake_servers.py), never a shipped judge.

Two runs of the five stages on one broker, each with the same number of answers sent one at
a time at a fixed rate: the first without a judge, the second with the judging stage beside
them (every citation judged, one request per answer). Printed beside each other: submit to
the lexical result (`answers.formatted`), median and p99, in both runs (the lexical result
must not wait for the model); and in the second, the lexical result to the refinement
(`answers.judged`) beside the model's time, and what the stage adds to it (target: the
model's time plus at most 50 ms).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from services.bench.e2e import ANSWER_SHAPE, Collector, Processes, percentile, send_all
from services.bench.workload import bench_answer
from services.broker import create_topics, free_port, pipeline_topics, start_broker
from services.runtime.config import RuntimeConfig
from services.runtime.dead_letters import Record
from services.runtime.operations import answer_records
from services.runtime.registry import load_stage, pipeline_stage_names
from services.runtime.supervisor import stage_command

WARMUP = 5


@dataclass(frozen=True)
class Spread:
    """Median and p99 of a set of latencies, in ms."""

    median_ms: float
    p99_ms: float

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        ordered = sorted(values)
        return cls(statistics.median(ordered), percentile(ordered, 0.99))


@dataclass(frozen=True)
class JudgingLatency:
    """What `citeflow bench judging` prints."""

    answers: int
    rate: float
    model_ms: float
    lexical_without_judge: Spread
    lexical_with_judge: Spread
    refinement: Spread  # answers.formatted -> answers.judged
    overhead: Spread  # refinement minus the model's time


def run_benchmark(count: int, rate: float, model_ms: float, partitions: int,
                  progress: Callable[[str], None]) -> JudgingLatency:
    """Both runs on one embedded broker (see the module docstring)."""
    try:
        from tests.services.judging.fake_servers import FakeJudgeServer
    except ImportError:
        raise RuntimeError("citeflow bench judging runs from a checkout: it starts the tests' "
                           "fake OpenAI-compatible server") from None
    run_id = uuid.uuid4().hex[:8]
    log_dir = Path(os.environ.get("CITEFLOW_BENCH_LOGS", f"/tmp/citeflow-bench-{run_id}"))
    log_dir.mkdir(parents=True, exist_ok=True)
    broker = start_broker(free_port())
    try:
        with FakeJudgeServer("openai") as server:
            answered = server.default

            def slow(method: str, path: str, body: Any) -> Any:
                return replace(answered(method, path, body), delay_s=model_ms / 1000)

            server.default = slow  # type: ignore[method-assign]
            judge_env = {"CITEFLOW_JUDGING": "openai:judge-model",
                         "CITEFLOW_JUDGING_BASE_URL": server.base_url,
                         "CITEFLOW_JUDGING_SCOPE": "all", "CITEFLOW_JUDGING_BATCH": "64"}
            progress(f"broker {broker.bootstrap}; fake judge {server.base_url} answering "
                     f"after {model_ms:.0f} ms; logs in {log_dir}")
            without, _ = _run(broker.bootstrap, f"nojudge-{run_id}", None, count, rate,
                              partitions, log_dir, progress)
            with_judge, refined = _run(broker.bootstrap, f"judge-{run_id}", judge_env, count,
                                       rate, partitions, log_dir, progress)
    finally:
        broker.stop()
    return JudgingLatency(count, rate, model_ms, Spread.of(without), Spread.of(with_judge),
                          Spread.of(refined), Spread.of([r - model_ms for r in refined]))


def _run(bootstrap: str, tag: str, judge_env: dict[str, str] | None, count: int,
         rate: float, partitions: int, log_dir: Path,
         progress: Callable[[str], None]) -> tuple[list[float], list[float]]:
    """Submit-to-formatted latencies (ms), and formatted-to-judged ones with a judge."""
    config = RuntimeConfig.from_env({}, bootstrap_servers=bootstrap, topic_prefix=f"{tag}.",
                                    partitions=partitions)
    specs = list(pipeline_stage_names())
    stages = [load_stage(s) for s in specs]
    inputs = [t for stage in stages for t in stage.input_topics]
    asyncio.run(create_topics(config, pipeline_topics(inputs, config.topic_prefix),
                              partitions))
    processes = Processes(config, log_dir)
    processes.env.update(judge_env or {})
    try:
        for spec in specs:
            processes.start(stage_command(spec), f"{tag}-{spec}")
        if judge_env is not None:
            processes.start(stage_command("judging"), f"{tag}-judging")
        progress(f"{tag}: {len(processes.started)} stage processes; {count} answers at "
                 f"{rate:g}/s")
        return asyncio.run(_measure(config, stages[0].input_topics[0], judge_env is not None,
                                    count, rate))
    finally:
        processes.stop()


async def _measure(config: RuntimeConfig, first: str, judged: bool, count: int,
                   rate: float) -> tuple[list[float], list[float]]:
    formatted = Collector(config, config.physical("answers.formatted"))
    refined = Collector(config, config.physical("answers.judged"))
    async with formatted, refined:
        warm = _answers("warm", 0, WARMUP)
        await send_all(config, config.physical(first), warm, None)
        await (refined if judged else formatted).wait_for({r.key for r in warm if r.key})
        paced = _answers("paced", WARMUP, count)
        sent = await send_all(config, config.physical(first), paced, rate)
        await formatted.wait_for(set(sent))
        lexical = [(formatted.arrived[k] - t) * 1000 for k, t in sent.items()]
        if not judged:
            return lexical, []
        await refined.wait_for(set(sent))
        return lexical, [(refined.arrived[k] - formatted.arrived[k]) * 1000 for k in sent]


def _answers(prefix: str, first_seed: int, count: int) -> list[Record]:
    """`count` answer.submitted records whose texts all differ (seeds from `first_seed`): the
    judge's cache, keyed by claim and passage, answers none of them."""
    data = [orjson.dumps(bench_answer(f"{prefix}-{i}", seed=first_seed + i, **ANSWER_SHAPE))
            .decode() for i in range(count)]
    records, bad = answer_records(data)
    assert not bad, bad
    return records
