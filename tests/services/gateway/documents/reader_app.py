"""A minimal gateway for the reader's tests: the real document routes, pages, auth and
problem handling over an in-memory results store (keys, answers, documents) and a
recording publisher. The integration tests run the real `create_app`."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.routing import BaseRoute

from schemas.documents import DocumentSubmitted
from services.gateway.auth import KeyVerifier, TokenBuckets
from services.gateway.context import Gateway
from services.gateway.documents import routes as document_routes
from services.gateway.documents.library import DocumentLibrary
from services.gateway.documents.reader import Reader
from services.gateway.documents.renderer import PageRenderer, RenderBudget
from services.gateway.problems import ProblemError, problem_handler
from services.gateway.settings import GatewaySettings
from services.ingest.documents.store import LocalDocumentStore
from services.store.api import AnswerRecord, ApiKey, DocumentRecord

KEYS = {"key-a": ("a", frozenset({"submit", "read", "stream"})),
        "key-b": ("b", frozenset({"submit", "read", "stream"})),
        "key-submit-only": ("a", frozenset({"submit"}))}


class MemoryStore:
    """The parts of ResultsStore the reader uses."""

    def __init__(self) -> None:
        self.documents: dict[tuple[str, str], DocumentRecord] = {}  # (tenant, doc_id)
        self.answers: dict[str, AnswerRecord] = {}

    async def migrate(self) -> None: ...

    async def close(self) -> None: ...

    async def create_key(self, tenant: str, scopes: frozenset[str], name: str | None = None,
                         rate_per_s: float | None = None) -> tuple[ApiKey, str]:
        secret = f"key-{tenant}-{len(KEYS)}"
        KEYS[secret] = (tenant, scopes)
        key = await self.verify_key(secret)
        assert key is not None
        return key, secret

    async def apply(self, updates: Any) -> int:
        for update in updates:
            self.answers[update.answer_id] = AnswerRecord(
                update.answer_id, update.tenant, update.status, update.model,
                update.submitted_at, update.event_time, update.event_id, update.result,
                update.reason, update.detail, update.summary, None, update.position)
        return len(updates)

    async def verify_key(self, secret: str) -> ApiKey | None:
        if secret not in KEYS:
            return None
        tenant, scopes = KEYS[secret]
        return ApiKey(hashlib.sha256(secret.encode()).hexdigest()[:8], tenant, scopes, None,
                      datetime.now(UTC), None, None)

    async def upsert_document(self, document: DocumentRecord) -> None:
        self.documents[(document.tenant, document.doc_id)] = document

    async def claim_document(self, document: DocumentRecord) -> DocumentRecord:
        """Each tenant's own doc_ids, as the SQL store keeps them."""
        key = (document.tenant, document.doc_id)
        found = self.documents.get(key)
        if found is None or found.sha256 != document.sha256:
            self.documents[key] = document
            return document
        return found

    async def get_document(self, doc_id: str, tenant: str | None) -> DocumentRecord | None:
        return next((d for (t, i), d in self.documents.items()
                     if i == doc_id and (tenant is None or t == tenant)), None)

    def key_of(self, doc_id: str) -> tuple[str, str]:
        """The key of the (first) document with this doc_id."""
        return next(key for key in self.documents if key[1] == doc_id)

    async def get(self, answer_id: str, tenant: str | None) -> AnswerRecord | None:
        found = self.answers.get(answer_id)
        return found if found and (tenant is None or found.tenant == tenant) else None

    def add_answer(self, result: bytes, tenant: str = "a") -> None:
        answer_id = orjson.loads(result)["answer_id"]
        self.answers[answer_id] = AnswerRecord(
            answer_id, tenant, "formatted", None, None, datetime.now(UTC), "e", result, None,
            None, None, None, None)


class RecordingPublisher:
    def __init__(self) -> None:
        self.published: list[tuple[DocumentSubmitted, str]] = []

    async def publish(self, submitted: DocumentSubmitted, tenant: str, sha256: str) -> str:
        self.published.append((submitted, tenant))
        return sha256

    async def stop(self) -> None:
        return None


def make_app(tmp: Path, extra: list[BaseRoute] | None = None,
             max_document_bytes: int = 8 * 1024 * 1024,
             render_budget: RenderBudget | None = None) -> Starlette:
    store = MemoryStore()
    app = Starlette(routes=[*document_routes(), *(extra or [])],
                    exception_handlers={ProblemError: problem_handler})
    settings = GatewaySettings()
    app.state.gateway = Gateway(settings, store, None, None,  # type: ignore[arg-type]
                                KeyVerifier(store, 5.0, 2),  # type: ignore[arg-type]
                                TokenBuckets(1000.0, 2.0), datetime.now(UTC))
    documents = LocalDocumentStore(tmp / "documents")
    app.state.reader = Reader(documents, DocumentLibrary(documents, tmp / "cache"),
                              RecordingPublisher(), tmp / "incoming", max_document_bytes,
                              # A deadline for a loaded test machine (the first job
                              # also waits for the reader process to start).
                              PageRenderer(tmp / "cache",
                                           render_budget or RenderBudget(deadline_s=120.0)))
    return app


def ingested(app: Starlette, doc_id: str, sections: int = 1) -> Any:
    """Mark an uploaded document ingested, as the store sink would."""
    store = app.state.gateway.store
    key = store.key_of(doc_id)
    store.documents[key] = replace(store.documents[key], status="ingested", sections=sections,
                                   chunks=1)
    return store.documents[key]
