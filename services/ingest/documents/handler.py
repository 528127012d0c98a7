"""The `documents.submitted` handler of the ingest stage (pure: message in, outputs out)."""

from __future__ import annotations

import base64
import re
from typing import cast

from schemas import topics
from schemas.documents import DocumentIngested, DocumentRejected, DocumentSubmitted
from schemas.envelope import EventDecodeError, decode
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.limits import DEFAULT_LIMITS, IngestLimits
from services.ingest.documents.rejection import DocumentRejection
from services.ingest.documents.store import DocumentStore, LocalDocumentStore
from services.runtime.stage import Message, Output, TransientError

# The subject of an upstream envelope is the doc_id (when it looks like one).
_DOC_ID = re.compile(r"^[A-Za-z0-9._:-]{1,200}$")


def _rejection(message: Message, exc: EventDecodeError) -> Output:
    """An unreadable envelope: rejected with the original bytes so it can be fixed and replayed."""
    subject = exc.subject or (message.key.decode("utf-8", "replace") if message.key else "")
    return Output(
        topic=topics.DOCUMENTS_REJECTED,
        data=DocumentRejected(
            doc_id=subject if _DOC_ID.match(subject) else None,
            code=exc.code, message=exc.message,
            original_base64=base64.b64encode(message.value).decode("ascii"),
        ),
        subject=subject or message.position,
        cause_id=message.position,
    )


def _read(store: DocumentStore, uri: str, limits: IngestLimits) -> bytes:
    """The referenced bytes; a store that is unavailable (not a bad reference) is transient."""
    try:
        size = store.size(uri)
        if size > limits.max_document_bytes:
            raise DocumentRejection(
                "document_too_large",
                f"the document has {size} bytes (limit {limits.max_document_bytes})",
            )
        return store.read(uri)
    except OSError as exc:
        raise TransientError(f"document store unavailable for {uri!r}: {exc}") from exc


def ingest_submitted(
    submitted: DocumentSubmitted, store: DocumentStore, limits: IngestLimits = DEFAULT_LIMITS
) -> DocumentIngested | DocumentRejected:
    """The outcome of one submission: its ingested payload or its rejection."""
    try:
        data = _read(store, submitted.uri, limits)
        ingested = ingest_document(
            data, submitted.doc_id, declared_format=submitted.format, name=submitted.uri,
            uri=submitted.uri, title=submitted.title, metadata=submitted.metadata,
            options=submitted.options, limits=limits,
        )
        # The estimate in ingest_document can be beaten (JSON escapes): the encoded event
        # is what must fit, else the producer refuses it and the document is dead-lettered.
        size = len(ingested.model_dump_json())
        if size > limits.max_event_bytes:
            raise DocumentRejection(
                "too_large_for_event",
                f"documents.ingested would be {size} bytes (limit {limits.max_event_bytes}); "
                "split the document")
        return ingested
    except DocumentRejection as exc:
        return DocumentRejected(
            doc_id=submitted.doc_id, uri=submitted.uri, code=exc.code, message=exc.message
        )


def handle_submitted(message: Message, store: DocumentStore | None = None) -> list[Output]:
    """One `documents.submitted` record to `documents.ingested` or `documents.rejected`.

    Never raises on bad input: unreadable envelopes, unknown versions, bad references and
    hostile documents all become rejections. Only an unavailable store raises
    (TransientError, for the runtime to retry).
    """
    try:
        event = decode(message.value, expected=DocumentSubmitted)
    except EventDecodeError as exc:
        return [_rejection(message, exc)]
    submitted = cast(DocumentSubmitted, event.data)
    outcome = ingest_submitted(submitted, store or LocalDocumentStore.from_env())
    topic = (
        topics.DOCUMENTS_INGESTED if isinstance(outcome, DocumentIngested)
        else topics.DOCUMENTS_REJECTED
    )
    return [Output(topic=topic, data=outcome, subject=submitted.doc_id, cause_id=event.id,
                   traceparent=event.traceparent)]
