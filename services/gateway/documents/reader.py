"""What the document routes reach through `request.app.state.reader`: the writable document
store, the library over it (caches), the page renderer (processes), the publisher of
`documents.submitted` and the limits."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request

from services.gateway.documents.library import DocumentLibrary
from services.gateway.documents.renderer import PageRenderer
from services.gateway.documents.publisher import (
    DocumentPublisher,
    KafkaDocumentPublisher,
)
from services.ingest.documents.limits import DEFAULT_LIMITS
from services.ingest.documents.store import LocalDocumentStore
from services.runtime.config import RuntimeConfig

CACHE_ENV = "CITEFLOW_READER_CACHE"


@dataclass
class Reader:
    store: LocalDocumentStore
    library: DocumentLibrary
    publisher: DocumentPublisher
    upload_dir: Path
    max_document_bytes: int = DEFAULT_LIMITS.max_document_bytes
    renderer: PageRenderer = field(default_factory=lambda: PageRenderer(
        Path(os.environ.get(CACHE_ENV) or ".citeflow/reader-cache").resolve()))

    @classmethod
    def from_env(cls, runtime: RuntimeConfig, send_timeout_s: float = 10.0,
                 retry_after_s: int = 2) -> Reader:
        """The local document store of `CITEFLOW_DOCUMENT_STORE` (the one ingest reads),
        page images cached under `CITEFLOW_READER_CACHE` (default `.citeflow/reader-cache`)."""
        store = LocalDocumentStore.from_env()
        cache = Path(os.environ.get(CACHE_ENV) or ".citeflow/reader-cache").resolve()
        return cls(store, DocumentLibrary(store, cache),
                   KafkaDocumentPublisher(runtime, send_timeout_s, retry_after_s),
                   store.root / ".incoming", renderer=PageRenderer(cache))


def reader_of(request: Request) -> Reader:
    reader: Any = request.app.state.reader
    assert isinstance(reader, Reader)
    return reader
