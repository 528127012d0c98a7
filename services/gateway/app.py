"""`create_app(settings)`: the gateway's Starlette application. Its lifespan opens the
results store, starts the producer (in the background: the gateway serves reads and
answers 503 to submits while the broker is unreachable) and the stream hub, and re-drives
accepted answers that never got an outcome."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute

from services.gateway import docs, health, reads, submit
from services.gateway.addresses import AddressLimiter
from services.gateway.auth import KeyVerifier, TokenBuckets
from services.gateway.context import Gateway, StreamHub
from services.gateway.documents.reader import Reader
from services.gateway.observability import ObservabilityMiddleware
from services.gateway.pages.cors import add_cors
from services.gateway.problems import (
    ProblemError,
    http_exception_handler,
    problem_handler,
)
from services.gateway.producer import AnswerProducer
from services.gateway.redrive import redrive_after_s, redrive_on_start
from services.gateway.settings import GatewaySettings
from services.store.api import ResultsStore


def open_store(url: str) -> ResultsStore:
    """The SQL results store at `url` (SQLite or PostgreSQL)."""
    from services.store.sql import SqlStore

    return SqlStore(url)


def make_hub(settings: GatewaySettings, store: ResultsStore) -> StreamHub:
    """The stream hub: one Kafka consumer of the outcome topics fanned out to clients."""
    from services.gateway.stream import Hub

    return Hub(settings.runtime, store)


def core_routes() -> list[BaseRoute]:
    """This package's own routes: submit (first: routes are tried in order, and it is the
    hot path), health, docs and reads."""
    return [*submit.routes(), *health.routes(), *docs.routes(), *reads.routes()]


def _routes() -> list[BaseRoute]:
    from services.gateway.documents import routes as document_routes
    from services.gateway.pages import routes as page_routes
    from services.gateway.stream import routes as stream_routes

    return [*core_routes(), *stream_routes(), *document_routes(), *page_routes()]


def app_from_env() -> Starlette:
    """The application of one `citeflow serve` worker: settings from the environment,
    JSON logs configured."""
    from services.runtime.gc_tuning import tune_gc
    from services.runtime.logging import configure

    settings = GatewaySettings.from_env()
    configure(settings.runtime.log_level)
    app = create_app(settings, warm_reader=True)
    tune_gc()  # as the stages: what is loaded lives for the process
    return app


def create_app(
    settings: GatewaySettings, *, store: ResultsStore | None = None,
    producer: AnswerProducer | None = None, hub: StreamHub | None = None,
    routes: list[BaseRoute] | None = None, warm_reader: bool = False,
) -> Starlette:
    """The application; `store`, `producer`, `hub` and `routes` replace the real ones
    (tests). The app starts and stops the producer and the hub it runs with; a store it was
    given is neither migrated nor closed by it. `warm_reader` starts the reader processes
    with the app (`citeflow serve`), not on the first reader request. With the real
    producer, answers accepted earlier that still have no outcome are re-driven at start
    (services/gateway/redrive.py)."""
    redrive_after = redrive_after_s() if producer is None else None

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        the_store = store or open_store(settings.store_url)
        if store is None:
            await the_store.migrate()
        the_producer = producer or AnswerProducer(settings.runtime, settings.send_timeout_s,
                                                  settings.retry_after_s)
        the_hub = hub or make_hub(settings, the_store)
        await the_producer.start()
        await the_hub.start()
        gateway = Gateway(
            settings=settings, store=the_store, producer=the_producer, hub=the_hub,
            verifier=KeyVerifier(the_store, settings.key_cache_seconds,
                                 settings.retry_after_s,
                                 AddressLimiter(settings.unauthenticated_rate_per_s,
                                                settings.unauthenticated_burst)),
            buckets=TokenBuckets(settings.rate_per_s, settings.burst_seconds),
            started_at=datetime.now(UTC),
        )
        app.state.gateway = gateway
        app.state.hub = the_hub
        app.state.submitter = submit.Submitter(gateway)
        app.state.reader = reader = Reader.from_env(settings.runtime, settings.send_timeout_s,
                                                    settings.retry_after_s)
        if warm_reader:
            reader.renderer.warm()  # the reader processes start beside the gateway
        redriving = None if redrive_after is None else asyncio.create_task(
            redrive_on_start(the_store, the_producer, redrive_after))
        try:
            yield
        finally:
            if redriving is not None:
                redriving.cancel()
            await reader.publisher.stop()
            reader.renderer.close()
            await the_hub.stop()
            await the_producer.stop()
            if store is None:
                await the_store.close()

    app = Starlette(
        routes=routes if routes is not None else _routes(),
        lifespan=lifespan,
        exception_handlers={ProblemError: problem_handler,
                            HTTPException: http_exception_handler},
    )
    app.add_middleware(ObservabilityMiddleware, router=app.router)
    add_cors(app)  # outermost: preflights are answered before anything else
    return app
