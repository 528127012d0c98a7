"""`documents.submitted` -> `documents.ingested` | `documents.rejected` (never raises)."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest

from schemas import topics
from schemas.documents import DocumentIngested, DocumentRejected, DocumentSubmitted
from schemas.envelope import encode, make_event
from services.ingest.documents import handle_submitted
from services.ingest.documents.store import LocalDocumentStore
from services.runtime.stage import Message, TransientError
from tests.services.ingest.documents.builders import (
    Chapter,
    EpubSpec,
    build_epub,
    build_pdf,
    xhtml,
)


@pytest.fixture
def store(tmp_path: Path) -> LocalDocumentStore:
    (tmp_path / "book.epub").write_bytes(
        build_epub(EpubSpec([Chapter("c.xhtml", xhtml("<p>Hello.</p>"), "C")])))
    (tmp_path / "paper.pdf").write_bytes(build_pdf([["Page one."]]))
    (tmp_path / "junk.bin").write_bytes(b"junk")
    return LocalDocumentStore(tmp_path)


def submitted(doc_id: str, uri: str, **fields: object) -> Message:
    event = make_event(DocumentSubmitted(doc_id=doc_id, uri=uri, **fields), subject=doc_id,
                       source="test", event_id=f"evt-{doc_id}")
    return Message(topic=topics.DOCUMENTS_SUBMITTED, value=encode(event), key=doc_id.encode(),
                   offset=7)


def test_epub_and_pdf_are_ingested(store: LocalDocumentStore) -> None:
    for doc_id, uri, fmt in (("b1", "book.epub", "epub"), ("p1", "store://paper.pdf", None)):
        [output] = handle_submitted(submitted(doc_id, uri, format=fmt, metadata={"t": 1}), store)
        assert output.topic == topics.DOCUMENTS_INGESTED
        assert output.subject == doc_id and output.cause_id == f"evt-{doc_id}"
        assert isinstance(output.data, DocumentIngested)
        assert output.data.doc_id == doc_id and output.data.metadata == {"t": 1}
        assert output.data.chunks[0].chunk_id == f"{doc_id}:0:0"


def test_bad_documents_and_references_are_rejected(store: LocalDocumentStore) -> None:
    cases = [("j", "junk.bin", "unknown_format"), ("m", "missing.pdf", "document_not_found"),
             ("t", "../etc/passwd", "unsafe_reference"), ("w", "book.epub", "not_a_pdf")]
    for doc_id, uri, code in cases:
        fmt = "pdf" if doc_id == "w" else None
        [output] = handle_submitted(submitted(doc_id, uri, format=fmt), store)
        assert output.topic == topics.DOCUMENTS_REJECTED
        assert isinstance(output.data, DocumentRejected)
        assert (output.data.code, output.data.doc_id, output.data.uri) == (code, doc_id, uri)
        assert output.subject == doc_id and output.cause_id == f"evt-{doc_id}"


@pytest.mark.parametrize(("value", "code"), [
    (b"not json", "invalid_json"),
    (b"\xff\xfe", "invalid_utf8"),
    (b"[]", "not_an_envelope"),
])
def test_unreadable_envelopes_are_rejections_with_the_original_bytes(
    store: LocalDocumentStore, value: bytes, code: str
) -> None:
    message = Message(topic=topics.DOCUMENTS_SUBMITTED, value=value, key=b"k1", offset=3)
    [output] = handle_submitted(message, store)
    assert output.topic == topics.DOCUMENTS_REJECTED
    assert output.data.code == code
    assert base64.b64decode(output.data.original_base64) == value
    assert output.subject == "k1" and output.cause_id == message.position
    assert output.data.doc_id == "k1"


def test_unknown_version_and_invalid_data_are_rejections(store: LocalDocumentStore) -> None:
    body = orjson.loads(encode(make_event(
        DocumentSubmitted(doc_id="v", uri="book.epub"), subject="v", source="test")))
    body["type"] = "citeflow.document.submitted.v9"
    [output] = handle_submitted(
        Message(topic=topics.DOCUMENTS_SUBMITTED, value=orjson.dumps(body)), store)
    assert (output.data.code, output.data.doc_id, output.subject) == ("unknown_version", "v", "v")
    body["type"] = "citeflow.document.submitted.v1"
    body["data"]["doc_id"] = "bad id with spaces"
    [output] = handle_submitted(
        Message(topic=topics.DOCUMENTS_SUBMITTED, value=orjson.dumps(body)), store)
    assert output.data.code == "invalid_data"


def test_an_unavailable_store_is_transient() -> None:
    class BrokenStore:
        def size(self, uri: str) -> int:
            raise ConnectionError("store down")

        def read(self, uri: str) -> bytes:
            raise ConnectionError("store down")

    with pytest.raises(TransientError):
        handle_submitted(submitted("d", "book.epub"), BrokenStore())


def test_default_store_comes_from_the_environment(
    store: LocalDocumentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEFLOW_DOCUMENT_STORE", str(store.root))
    [output] = handle_submitted(submitted("env", "paper.pdf"))
    assert output.topic == topics.DOCUMENTS_INGESTED


def test_an_event_over_the_size_limit_is_a_rejection_not_a_dead_letter(tmp_path: Path) -> None:
    """Ingest's estimate let through events its producer then refused (control
    characters take 6 bytes of JSON each), and the document was dead-lettered instead of
    rejected; the encoded size is what is checked now."""
    from services.ingest.documents.handler import ingest_submitted
    from services.ingest.documents.limits import IngestLimits

    body = "<html><body><p>" + ("\x01" * 9 + " ") * 300 + "</p></body></html>"
    (tmp_path / "ctl.epub").write_bytes(build_epub(EpubSpec([Chapter("c.xhtml", body.encode(),
                                                                      "C")])))
    outcome = ingest_submitted(DocumentSubmitted(doc_id="ctl", uri="ctl.epub"),
                               LocalDocumentStore(tmp_path), IngestLimits(max_event_bytes=10_000))
    assert isinstance(outcome, DocumentRejected) and outcome.code == "too_large_for_event"
