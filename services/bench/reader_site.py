"""A running gateway with the corpus answers and documents in its results store, for the
reader's browser tests and `bench reader`: the real `create_app` (routes, CSP, auth) served by
uvicorn in a thread, over a given results store; documents put in the real document store.
Nothing here produces or streams (no broker is needed to read): the producer and the stream
hub are inert stand-ins."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import uvicorn

from services.bench.reader_corpus import CorpusDocument
from services.gateway.app import create_app
from services.gateway.documents.reader import CACHE_ENV
from services.gateway.problems import unavailable
from services.gateway.settings import GatewaySettings
from services.ingest.documents.store import ENV_VAR, LocalDocumentStore
from services.store.api import (
    AnswerRecord,
    DocumentRecord,
    Position,
    ResultsStore,
    ResultUpdate,
)
from services.store.summary import summarize

TENANT = "demo"


class InertProducer:
    """Answers 503 to submits: the reader never submits."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def ready(self) -> bool:
        return False

    async def send(self, *args: Any) -> str:
        raise unavailable("broker", 2)


class InertHub:
    """Streams nothing: the reader's pages read results, not the stream."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def wait_for(self, answer_id: str, tenant: str,
                       timeout: float) -> AnswerRecord | None:
        return None

    def ready(self) -> bool:
        return True


@dataclass
class Site:
    base: str
    key: str
    app: Any
    loop: asyncio.AbstractEventLoop

    def call(self, coroutine: Any) -> Any:
        """Run a coroutine on the server's loop (the store belongs to it)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(60)

    def viewer_url(self, answer_id: str) -> str:
        return f"{self.base}/answers/{answer_id}#key={self.key}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def seed(store: ResultsStore, documents: list[CorpusDocument],
               answers: list[bytes], directory: Path) -> str:
    """Documents (ingested) and formatted answers into the stores; a new read key."""
    files = LocalDocumentStore(directory)
    now = datetime.now(UTC)
    for document in documents:
        uri = files.put(document.data, document.fmt)
        await store.upsert_document(DocumentRecord(
            doc_id=document.doc_id, tenant=TENANT, status="ingested", format=document.fmt,
            path=uri, sha256=document.sha256, submitted_at=now, updated_at=now,
            sections=len(document.ingested.sections), chunks=len(document.ingested.chunks)))
    updates = []
    for offset, result in enumerate(answers):
        data = orjson.loads(result)
        updates.append(ResultUpdate(
            answer_id=data["answer_id"], tenant=TENANT, status="formatted",
            event_id=f"reader-{data['answer_id']}", event_time=now,
            position=Position("answers.formatted", 0, offset),
            model=(data.get("metadata") or {}).get("model"), submitted_at=now,
            result=result, summary=summarize(data)))
    await store.apply(updates)
    _, secret = await store.create_key(TENANT, frozenset({"read", "stream"}), name="reader")
    return secret


@contextmanager
def reader_site(store: ResultsStore, documents: list[CorpusDocument], answers: list[bytes],
                directory: Path) -> Iterator[Site]:
    """Serve the gateway on a free loopback port until the block ends."""
    saved = {name: os.environ.get(name) for name in (ENV_VAR, CACHE_ENV)}
    os.environ[ENV_VAR] = str(directory / "documents")
    os.environ[CACHE_ENV] = str(directory / "reader-cache")
    port = free_port()
    settings = GatewaySettings.from_env(host="127.0.0.1", port=port)
    app = create_app(settings, store=store, producer=InertProducer(),  # type: ignore[arg-type]
                     hub=InertHub())
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),),
                              daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the gateway did not start")
            time.sleep(0.02)
        site = Site(f"http://127.0.0.1:{port}", "", app, loop)
        site.call(store.migrate())
        site.key = site.call(seed(store, documents, answers, directory / "documents"))
        yield site
        site.call(store.close())
    finally:
        server.should_exit = True
        thread.join(15)
        loop.close()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
