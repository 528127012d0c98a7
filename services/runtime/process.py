"""Running one stage as a process: logging, metrics, signals, shutdown deadline."""

from __future__ import annotations

import asyncio
import os
import signal

from services.runtime.config import RuntimeConfig
from services.runtime.gc_tuning import tune_gc
from services.runtime.logging import configure, get_logger
from services.runtime.loop import StageRunner
from services.runtime.metrics import StageMetrics
from services.runtime.sink import SinkRunner
from services.runtime.stage import Stage


async def serve(stage: Stage, config: RuntimeConfig) -> int:
    """Run `stage` until SIGTERM/SIGINT; returns the exit code (0 after a clean stop)."""
    log = get_logger(stage.name)
    metrics = StageMetrics(stage.name)
    for collector in stage.collectors:
        metrics.registry.register(collector)
    port = metrics.serve(config.metrics_port)
    if port:
        log.info("metrics endpoint", port=port)
    runner = (SinkRunner if stage.sink else StageRunner)(stage, config, metrics)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, runner.stop)
    task = asyncio.create_task(runner.run())
    stop_wait = asyncio.create_task(runner.stopping.wait())
    await asyncio.wait({task, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
    stop_wait.cancel()
    try:
        # Finish the in-flight batch, flush, commit and leave the group within the deadline.
        await asyncio.wait_for(asyncio.shield(task), timeout=config.shutdown_timeout_s)
    except TimeoutError:
        log.error("shutdown deadline exceeded; unfinished records will be re-delivered")
        task.cancel()
        return 1
    except Exception as exc:
        log.exception("stage failed", error=str(exc))
        return 1
    return 0


def run_stage(stage: Stage, config: RuntimeConfig) -> int:
    """Configure logging and run `stage` in a fresh event loop."""
    configure(config.log_level)
    tune_gc()
    profile_dir = os.environ.get("CITEFLOW_PROFILE_DIR")
    if not profile_dir:
        return asyncio.run(serve(stage, config))
    # Profiling aid: cProfile the whole process, dumped to DIR/<stage>-<pid>.prof at exit.
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        return asyncio.run(serve(stage, config))
    finally:
        profiler.disable()
        os.makedirs(profile_dir, exist_ok=True)
        profiler.dump_stats(os.path.join(profile_dir, f"{stage.name}-{os.getpid()}.prof"))
