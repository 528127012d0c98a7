"""Property-based requests over the reader's part of the OpenAPI surface (schemathesis)
against the real results store (SQLite and PostgreSQL) and real stored documents: no
operation answers 5xx for any input it generates, with a valid key and without one (but the
documented 503 of an upload when there is no broker to take it)."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pymupdf
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from sqlalchemy.pool import NullPool

from services.gateway.app import core_routes, create_app
from services.gateway.documents import routes as document_routes
from services.gateway.pages import routes as page_routes
from services.ingest.documents.store import ENV_VAR, LocalDocumentStore
from services.store.api import DocumentRecord
from services.store.engine import make_engine
from services.store.sql import SqlStore
from tests.services.gateway.conftest import SETTINGS
from tests.services.gateway.documents.test_document_routes import _epub
from tests.services.gateway.fakes import FakeHub, FakeProducer

READER_OPERATIONS = {"upload_document", "document_status", "chapter", "resource", "page_png",
                     "page_highlights", "answer_viewer", "dashboard"}


async def _prepared(store: SqlStore, directory: Path) -> str:
    await store.migrate()
    files = LocalDocumentStore(directory)
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "A page of text to search.")
    now = datetime.now(UTC)
    for doc_id, fmt, data in (("book", "epub", _epub()), ("paper", "pdf", pdf.tobytes())):
        await store.upsert_document(DocumentRecord(
            doc_id=doc_id, tenant="acme", status="ingested", format=fmt,
            path=files.put(data, fmt), sha256=hashlib.sha256(data).hexdigest(),
            submitted_at=now, updated_at=now, sections=1, chunks=1))
    _, secret = await store.create_key("acme", frozenset({"submit", "read"}), rate_per_s=1e6)
    return secret


def test_no_reader_operation_answers_5xx(store_url: str, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "documents"))
    monkeypatch.setenv("CITEFLOW_READER_CACHE", str(tmp_path / "cache"))
    store = SqlStore(make_engine(store_url, poolclass=NullPool))
    key = asyncio.run(_prepared(store, tmp_path / "documents"))
    app = create_app(SETTINGS, store=store, producer=FakeProducer(),  # type: ignore[arg-type]
                     hub=FakeHub(), routes=[*core_routes(), *document_routes(),
                                            *page_routes()])
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    operations = [op for op in operations
                  if op.definition.raw.get("operationId") in READER_OPERATIONS]
    assert len(operations) == len(READER_OPERATIONS)
    for operation in operations:

        @settings(max_examples=25, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(operation.as_strategy())
        def check(case: schemathesis.Case) -> None:
            for headers in ({"Authorization": f"Bearer {key}"}, {}):
                response = case.call(headers=headers)
                # There is no broker here: an upload that reaches it is a clear 503.
                unavailable = (response.status_code == 503
                               and response.json().get("code") == "broker_unavailable"
                               and case.path == "/v1/documents")
                assert response.status_code < 500 or unavailable, (
                    case.method, case.path, response.text[:300])

        check()
