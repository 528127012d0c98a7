"""`citeflow serve`: the HTTP gateway on uvicorn."""

from __future__ import annotations

import os
from typing import Any

import click

from services.cli import bench, main
from services.cli.options import config_options, err, runtime_config


@main.command()
@click.option("--host", help="Interface to listen on [env CITEFLOW_HTTP_HOST; 127.0.0.1]")
@click.option("--port", type=int, help="Port [env CITEFLOW_HTTP_PORT; 8000]")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes sharing the port (each its own producer, store "
                   "connections, stream consumer and metrics)")
@click.option("--store-url", help="Results store, SQLAlchemy URL [env CITEFLOW_STORE_URL; "
                                  "an SQLite file in CITEFLOW_DATA_DIR or .citeflow/]")
@click.option("--log-level", help="Log level [env CITEFLOW_LOG_LEVEL; info]")
@config_options()
def serve(host: str | None, port: int | None, workers: int, store_url: str | None,
          log_level: str | None, **flags: Any) -> None:
    """Serve the HTTP gateway: submit answers, read results and stats, the live stream,
    documents, the reader and dashboard pages, /docs, /metrics, /healthz and /readyz.

    Every request needs an API key (`citeflow keys create`). Logs are JSON lines on
    stderr, one per request.
    """
    import uvicorn

    from services.gateway.http_guard import uvicorn_options
    from services.gateway.settings import GatewaySettings

    settings = GatewaySettings.from_env(host=host, port=port)
    # The gateway serves reads without a broker: an unreachable one is reported, not
    # waited for; settings the broker refuses (TLS, SASL) end the command.
    config = runtime_config(wait=False, **flags)
    # Workers are started by uvicorn and read their settings from the environment.
    os.environ["KAFKA_BOOTSTRAP_SERVERS"] = config.bootstrap_servers
    if config.enable_idempotence is not None:
        os.environ["KAFKA_ENABLE_IDEMPOTENCE"] = str(config.enable_idempotence).lower()
    for name, value in (("CITEFLOW_TOPIC_PREFIX", config.topic_prefix),
                        ("CITEFLOW_STORE_URL", store_url),
                        ("CITEFLOW_LOG_LEVEL", log_level)):
        if value:
            os.environ[name] = value
    err.print(f"[green]gateway[/] on http://{settings.host}:{settings.port} "
              f"({workers} worker{'s' * (workers > 1)}, broker {config.bootstrap_servers}, "
              f"{config.kafka.describe()})")
    uvicorn.run("services.gateway.app:app_from_env", factory=True, host=settings.host,
                port=settings.port, workers=workers, log_config=None, access_log=False,
                lifespan="on", timeout_graceful_shutdown=10,
                # Bounded, timed request heads; see services/gateway/http_guard.py.
                **uvicorn_options())


@bench.command("gateway")
@click.option("--part", "parts", multiple=True, type=click.Choice(["submit", "read", "stream"]),
              help="What to measure (repeatable) [default: all]")
@click.option("--seconds", type=float, default=6.0, show_default=True,
              help="Length of each measured window (after 1 s of warm-up)")
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True,
              help="Rounds over every side, alternating; the medians are the result")
@click.option("--connections", "concurrency", type=click.IntRange(min=1), default=64,
              show_default=True, help="Keep-alive connections of the load generator")
@click.option("--partitions", type=int, default=4, show_default=True)
@click.option("--bootstrap", default=None, metavar="HOST:PORT",
              help="Use this broker instead of starting the embedded one")
@click.option("--store-url", default=None, metavar="URL",
              help="Results store of the gateway (an empty PostgreSQL database, say) "
                   "[default: a new SQLite file]")
def bench_gateway(parts: tuple[str, ...], seconds: float, repeat: int, concurrency: int,
                  partitions: int, bootstrap: str | None, store_url: str | None) -> None:
    """The gateway's submit rate (one and two workers) beside a bare Starlette and a bare
    FastAPI endpoint that only parse and produce, and a raw aiokafka producer; p50/p99 at
    half load; GET /v1/answers/{id} under the submit load; the SSE stream to 10/100/1,000
    clients (10,000 held, 100 stalled) beside a bare fan-out. Targets: docs/benchmarks.md."""
    from services.bench.gateway import PARTS, run_benchmark

    run_benchmark(parts or PARTS, seconds=seconds, concurrency=concurrency, repeat=repeat,
                  bootstrap=bootstrap, partitions=partitions, progress=err.print,
                  out=click.echo, store_url=store_url)


@bench.command("client")
@click.option("--seconds", type=float, default=5.0, show_default=True,
              help="Length of each measured window")
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True,
              help="Rounds over both sides, alternating; the medians are the result")
@click.option("--concurrency", type=click.IntRange(min=1), default=32, show_default=True,
              help="Concurrent callers of the async side")
def bench_client(seconds: float, repeat: int, concurrency: int) -> None:
    """Submit throughput and latency through the Python client beside raw httpx posting the
    same answers, sync and async (a real gateway, embedded broker, SQLite)."""
    from services.bench.client import run_benchmark

    run_benchmark(seconds, concurrency, repeat, progress=err.print, out=click.echo)


@bench.command("hostile")
@click.option("--seconds", type=float, default=60.0, show_default=True,
              help="Length of each window: reads alone, then reads beside the attacks")
@click.option("--repeat", type=click.IntRange(min=1), default=2, show_default=True,
              help="Alternating rounds (alone, under attack); the medians are the result")
@click.option("--only", "kinds", multiple=True,
              type=click.Choice(["render", "bomb", "fill", "keys", "head", "chunked", "half",
                                 "trickle"]),
              help="Only these attacks (repeatable) [default: all]")
@click.option("--shared-cores", is_flag=True,
              help="Leave the gateway and the bench's clients on every core (by default "
                   "each has half of them, so the clients' work is not the gateway's)")
def bench_hostile(seconds: float, repeat: int, kinds: tuple[str, ...],
                  shared_cores: bool) -> None:
    """The gateway's p99 for ordinary reads while hostile clients send the worst request of
    each kind (huge page renders, zip bombs, cache fillers, oversized and slow heads,
    oversize bodies, random keys) beside p99 without them (target: within 2x), /healthz
    p99 (under 100 ms) and the gateway's peak memory (under 512 MB)."""
    from services.bench.hostile import KINDS, run

    run(seconds, progress=err.print, out=click.echo, kinds=kinds or KINDS, repeat=repeat,
        shared=shared_cores)
