"""Pure functions from one Kafka record to what the results store keeps of it.

`answers.submitted` -> Submission (envelope and metadata only: validating the answer is
ingest's job), `answers.formatted` / `answers.rejected` / `answers.*.dlq` -> ResultUpdate,
`answers.judged` -> Judgement,
`documents.ingested` / `documents.rejected` -> DocumentRecord. The store sink and the live
stream hub both read records through here.

A record these functions cannot read raises PermanentError (the sink dead-letters it); a
submission with no answer id gives None (ingest rejects it). A rejection or dead letter
with no answer id anywhere is kept under the id of the input it came from
(`@topic:partition:offset`, schemas.answers.unidentified_answer_id): every such input is
one row, listed, counted and streamed like any other outcome.

Tenancy: an answer's tenant is `metadata.tenant` when it is a string (the gateway stamps it
there and as the envelope extension `tenant`), else the extension, else "default"; its model
is `metadata.model`.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, cast

import orjson
from pydantic import BaseModel

from schemas import topics
from schemas.answers import AnswerRejected, unidentified_answer_id
from schemas.documents import DocumentIngested, DocumentRejected
from schemas.envelope import (
    Event,
    EventDecodeError,
    decode,
    parse_envelope,
    payload_json,
)
from schemas.formatted import AnswerFormatted
from schemas.judged import AnswerJudged
from schemas.registry import parse_type
from services.runtime.dead_letters import is_marker, read_dead_letter
from services.runtime.stage import Message, PermanentError
from services.store.api import (
    DocumentRecord,
    Judgement,
    Position,
    ResultUpdate,
    StoreItem,
    Submission,
)
from services.store.summary import summarize

DEFAULT_TENANT = "default"

_ANSWER_DLQ_PREFIX = "answers."
_DLQ_SUFFIX = ".dlq"
# Ingest's dead letters of documents: the document is `dead_lettered`, not `submitted`.
DOCUMENTS_DLQ = topics.dlq_topic(topics.DOCUMENTS_SUBMITTED)


def decode_record(message: Message) -> StoreItem | None:
    """What the store keeps of one record of any topic the sink reads (None: nothing)."""
    topic = message.topic
    if topic == topics.ANSWERS_SUBMITTED:
        return decode_submitted(message)
    if topic == topics.ANSWERS_FORMATTED:
        return decode_formatted(message)
    if topic == topics.ANSWERS_REJECTED:
        return decode_rejected(message)
    if topic.endswith(_DLQ_SUFFIX) and is_marker(message.headers):
        return None  # an operator's note that a letter was worked: nothing to store
    if topic == topics.ANSWERS_JUDGED:
        return decode_judged(message)
    if topic.startswith(_ANSWER_DLQ_PREFIX) and topic.endswith(_DLQ_SUFFIX):
        return decode_dead_letter(message)
    if topic in (topics.DOCUMENTS_INGESTED, topics.DOCUMENTS_REJECTED):
        return decode_document(message)
    if topic == DOCUMENTS_DLQ:
        return decode_document_dead_letter(message)
    return None


def tenant_of(metadata: Any, envelope: Mapping[str, Any] | None = None) -> str:
    """The tenant of an answer from its metadata (or envelope extension), else "default"."""
    if isinstance(metadata, Mapping) and isinstance(metadata.get("tenant"), str):
        return str(metadata["tenant"])
    if envelope is not None and isinstance(envelope.get("tenant"), str):
        return str(envelope["tenant"])
    return DEFAULT_TENANT


def model_of(metadata: Any) -> str | None:
    """The model named in an answer's metadata, if any."""
    if isinstance(metadata, Mapping) and isinstance(metadata.get("model"), str):
        return str(metadata["model"])
    return None


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 event time as an aware UTC datetime; None when absent or unreadable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def decode_submitted(message: Message) -> Submission | None:
    """A submission from `answers.submitted`; None for input ingest will reject anyway
    (its rejection arrives on `answers.rejected` and is recorded from there)."""
    try:
        envelope = parse_envelope(message.value)
    except EventDecodeError:
        return None
    parsed = parse_type(envelope["type"])
    data = envelope["data"]
    if parsed is None or parsed[0] != "answer.submitted" or not isinstance(data, dict):
        return None
    answer_id = data.get("answer_id")
    if not isinstance(answer_id, str) or not answer_id:
        return None
    metadata = data.get("metadata")
    return Submission(
        answer_id=answer_id,
        tenant=tenant_of(metadata, envelope),
        submitted_at=parse_time(envelope.get("time")) or _record_time(message),
        model=model_of(metadata),
        event_id=envelope["id"],
        position=_position(message),
    )


def decode_formatted(message: Message) -> ResultUpdate:
    """The formatted result of an answer, with its summary and JSON bytes."""
    event = _decode(message, AnswerFormatted)
    result = payload_json(event.data)
    data = orjson.loads(result)
    metadata = data.get("metadata")
    return ResultUpdate(
        answer_id=data["answer_id"],
        tenant=tenant_of(metadata),
        status="formatted",
        event_id=event.id,
        event_time=parse_time(event.time) or _record_time(message),
        position=_position(message),
        model=model_of(metadata),
        result=result,
        summary=summarize(data),
    )


def decode_judged(message: Message) -> Judgement:
    """A model judge's second opinion, kept beside the answer's formatted result."""
    event = _decode(message, AnswerJudged)
    judged = cast(AnswerJudged, event.data)
    return Judgement(
        answer_id=judged.answer_id,
        tenant=judged.tenant,
        judge=judged.judge,
        disagreements=judged.disagreements,
        event_id=event.id,
        event_time=parse_time(event.time) or _record_time(message),
        position=_position(message),
        judged=payload_json(judged),
        usd=judged.cost.usd,
        latency_ms=judged.cost.latency_ms,
    )


def decode_rejected(message: Message) -> ResultUpdate:
    """A rejection; tenant, model and submit time read from the original bytes where they
    are a readable envelope."""
    event = _decode(message, AnswerRejected)
    rejected = cast(AnswerRejected, event.data)
    original = _original_envelope(rejected.original_base64)
    data = _object(original.get("data"))
    answer_id = rejected.answer_id or _key(message) or data.get("answer_id")
    if not isinstance(answer_id, str) or not answer_id:
        answer_id = unidentified_answer_id(rejected.position or message.position)
    metadata = data.get("metadata")
    return ResultUpdate(
        answer_id=answer_id,
        tenant=tenant_of(metadata, original),
        status="rejected",
        event_id=event.id,
        event_time=parse_time(event.time) or _record_time(message),
        position=_position(message),
        model=model_of(metadata),
        submitted_at=parse_time(original.get("time")),
        reason=rejected.code,
        detail=rejected.model_dump(exclude={"original_base64"}),
    )


def decode_dead_letter(message: Message) -> ResultUpdate:
    """A dead letter of a pipeline stage: the stage and error from its headers, the answer
    and tenant from the original event where readable."""
    info = read_dead_letter(tuple(message.headers))
    if info is None:
        raise PermanentError("not_a_dead_letter", "record on a .dlq topic without dlq headers")
    envelope = _json_object(message.value)
    data = _object(envelope.get("data"))
    # Internal events carry the submitted answer under `answer`; answers.submitted at top.
    answer = _object(data.get("answer")) or data
    original_position = f"{info.original_topic}:{info.original_partition}:{info.original_offset}"
    answer_id = _key(message) or envelope.get("subject") or answer.get("answer_id")
    if not isinstance(answer_id, str) or not answer_id:
        answer_id = unidentified_answer_id(original_position)
    metadata = answer.get("metadata")
    original_id = envelope.get("id") if isinstance(envelope.get("id"), str) else (
        original_position)
    detail = {
        "stage": info.stage,
        "error_type": info.error_type,
        "error_code": info.error_code,
        "error_message": info.error_message,
        "attempts": info.attempts,
        "original_topic": info.original_topic,
        "original_partition": info.original_partition,
        "original_offset": info.original_offset,
    }
    return ResultUpdate(
        answer_id=answer_id,
        tenant=tenant_of(metadata, envelope),
        status="dead_lettered",
        # Deterministic: the same dead letter read again is the same event.
        event_id=f"dlq:{info.stage}:{original_id}",
        event_time=_record_time(message, fallback=parse_time(envelope.get("time"))),
        position=_position(message),
        model=model_of(metadata),
        reason=info.error_code or info.error_type,
        detail=detail,
    )


def decode_document(message: Message) -> DocumentRecord:
    """What ingest made of a document (`documents.ingested` / `documents.rejected`). Only
    the outcome fields are meaningful: the store keeps the path, hash and tenant of a row
    the gateway created."""
    expected = (
        DocumentIngested if message.topic == topics.DOCUMENTS_INGESTED else DocumentRejected
    )
    event = _decode(message, expected)
    document = cast(DocumentIngested | DocumentRejected, event.data)
    doc_id = document.doc_id or _key(message)
    if not doc_id:
        raise PermanentError("no_doc_id", "document outcome without a doc_id or key")
    when = parse_time(event.time) or _record_time(message)
    path = document.uri or ""
    if isinstance(document, DocumentIngested):
        return DocumentRecord(
            doc_id=doc_id, tenant=tenant_of(document.metadata), status="ingested",
            format=document.format, path=path, sha256="", submitted_at=when, updated_at=when,
            sections=len(document.sections), chunks=len(document.chunks),
        )
    return DocumentRecord(
        doc_id=doc_id, tenant=DEFAULT_TENANT, status="rejected", format=None, path=path,
        sha256="", submitted_at=when, updated_at=when, reason=document.code,
        detail=document.model_dump(exclude={"original_base64"}),
    )


def decode_document_dead_letter(message: Message) -> DocumentRecord:
    """A `documents.submitted` record ingest failed on: the document is `dead_lettered`
    with the error from the dead-letter headers (the row keeps its path, hash, tenant)."""
    info = read_dead_letter(tuple(message.headers))
    if info is None:
        raise PermanentError("not_a_dead_letter", "record on a .dlq topic without dlq headers")
    envelope = _json_object(message.value)
    data = _object(envelope.get("data"))
    doc_id = _key(message) or envelope.get("subject") or data.get("doc_id")
    if not isinstance(doc_id, str) or not doc_id:
        raise PermanentError("no_doc_id", "document dead letter without a doc_id or key")
    when = _record_time(message, fallback=parse_time(envelope.get("time")))
    return DocumentRecord(
        doc_id=doc_id, tenant=tenant_of(data.get("metadata"), envelope),
        status="dead_lettered", format=None,
        path=data["uri"] if isinstance(data.get("uri"), str) else "", sha256="",
        submitted_at=when,
        updated_at=when, reason=info.error_code or info.error_type,
        detail={"stage": info.stage, "error_type": info.error_type,
                "error_message": info.error_message, "attempts": info.attempts},
    )


def _decode(message: Message, expected: type[BaseModel]) -> Event:
    """The event of an internal topic; an unreadable one is a PermanentError."""
    try:
        return decode(message.value, expected=expected)
    except EventDecodeError as exc:
        raise PermanentError(exc.code, exc.message) from None


def _position(message: Message) -> Position:
    return Position(message.topic, message.partition, message.offset)


def _key(message: Message) -> str | None:
    if not message.key:
        return None
    try:
        return message.key.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _record_time(message: Message, fallback: datetime | None = None) -> datetime:
    """The record's Kafka timestamp, else `fallback`, else now."""
    if message.timestamp_ms is not None and message.timestamp_ms >= 0:
        return datetime.fromtimestamp(message.timestamp_ms / 1000, UTC)
    return fallback or datetime.now(UTC)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _json_object(value: bytes) -> dict[str, Any]:
    """A JSON object from bytes, or {} for anything else (invalid UTF-8 or JSON included)."""
    try:
        return _object(orjson.loads(value))
    except orjson.JSONDecodeError:
        return {}


def _original_envelope(original_base64: str) -> dict[str, Any]:
    try:
        raw = base64.b64decode(original_base64, validate=True)
    except (binascii.Error, ValueError):
        return {}
    return _json_object(raw)
