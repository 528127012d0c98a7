"""Real records of every topic the store sink reads, built by the real pipeline logic (the
in-process pipeline, the envelope encoder, the dead-letter builder): shared by the decode,
store and sink tests."""

from __future__ import annotations

import base64
from typing import Any

import orjson

from schemas.answers import AnswerRejected, AnswerSubmitted
from schemas.documents import DocumentIngested, DocumentRejected, DocumentSection
from schemas.envelope import encode, make_event
from schemas.formatted import AnswerFormatted
from services.bench.workload import bench_answer
from services.pipeline import process_answer
from services.ingest.answers import handle_submitted
from services.runtime.dead_letters import dead_letter
from services.runtime.loop import output_record
from services.runtime.stage import Message, PermanentError


def answer(answer_id: str, *, tenant: str | None = "acme", model: str | None = "gpt-x",
           seed: int = 0, verbatim_units: int = 2) -> dict[str, Any]:
    """A valid small answer with metadata naming its tenant and model."""
    data = bench_answer(answer_id, words=80, citations=4, sources=2, chunks_per_source=1,
                        chunk_chars=300, verbatim_units=verbatim_units, seed=seed)
    metadata = {}
    if tenant is not None:
        metadata["tenant"] = tenant
    if model is not None:
        metadata["model"] = model
    data["metadata"] = metadata
    return data


def event_bytes(data: Any, subject: str, time: str, event_id: str,
                extensions: dict[str, str] | None = None) -> bytes:
    """A CloudEvents record value of a payload model at a given time."""
    value = encode(make_event(data, subject=subject, source="test", event_id=event_id,
                              time=time))
    if extensions:
        body = orjson.loads(value)
        body.update(extensions)
        value = orjson.dumps(body)
    return value


def submitted(data: dict[str, Any], time: str, offset: int = 0, partition: int = 0,
              event_id: str | None = None) -> Message:
    model = AnswerSubmitted.model_validate(data)
    tenant = (data.get("metadata") or {}).get("tenant")
    value = event_bytes(model, data["answer_id"], time, event_id or f"sub-{data['answer_id']}",
                        {"tenant": tenant} if tenant else None)
    return Message("answers.submitted", value, data["answer_id"].encode(), partition, offset)


def formatted_model(data: dict[str, Any]) -> AnswerFormatted:
    result = process_answer(orjson.dumps(data), event_id=f"sub-{data['answer_id']}")
    assert isinstance(result, AnswerFormatted), result
    return result


def formatted(data: dict[str, Any], time: str, offset: int = 0, partition: int = 0,
              event_id: str | None = None) -> Message:
    value = event_bytes(formatted_model(data), data["answer_id"], time,
                        event_id or f"fmt-{data['answer_id']}")
    return Message("answers.formatted", value, data["answer_id"].encode(), partition, offset)


def rejected(data: dict[str, Any], time: str, offset: int = 0, code: str = "invalid_data",
             event_id: str | None = None) -> Message:
    """A rejection of `data` as ingest writes it (the original envelope base64-encoded)."""
    original = submitted(data, time).value
    rejection = AnswerRejected(
        answer_id=data["answer_id"], code=code, message="$.data.text: bad", path="$.data.text",
        original_base64=base64.b64encode(original).decode(), size_bytes=len(original),
    )
    value = event_bytes(rejection, data["answer_id"], time,
                        event_id or f"rej-{data['answer_id']}")
    return Message("answers.rejected", value, data["answer_id"].encode(), 0, offset)


def unkeyed_rejection(value: bytes, partition: int, offset: int) -> Message:
    """What ingest and the runtime publish on answers.rejected for an input without a key
    (read from answers.submitted at `partition`, `offset`) that does not give its id."""
    [out] = handle_submitted(Message("answers.submitted", value, None, partition, offset))
    record = output_record("ingest", out)
    return Message(record.topic, record.value, record.key, 0, offset + 100)


def dead_lettered(data: dict[str, Any], time: str, offset: int = 0,
                  stage: str = "citations", timestamp_ms: int | None = None) -> Message:
    """A dead letter of `stage` for the answer (its original event: the submitted one)."""
    original = submitted(data, time)
    record = dead_letter(original._replace(topic="answers.scored"), stage,
                         PermanentError("boom_code", "it broke"), 3)
    return Message(record.topic, record.value, record.key, 0, offset, tuple(record.headers),
                   timestamp_ms)


def document_ingested(doc_id: str, time: str, tenant: str = "acme") -> Message:
    doc = DocumentIngested(
        doc_id=doc_id, format="epub", uri=f"store/{doc_id}.epub", metadata={"tenant": tenant},
        sections=[DocumentSection(section_id="s1", index=0, text="hello")], chunks=[],
    )
    return Message("documents.ingested", event_bytes(doc, doc_id, time, f"ing-{doc_id}"),
                   doc_id.encode())


def document_rejected(doc_id: str, time: str) -> Message:
    doc = DocumentRejected(doc_id=doc_id, code="not_a_zip", message="not an EPUB")
    return Message("documents.rejected", event_bytes(doc, doc_id, time, f"drej-{doc_id}"),
                   doc_id.encode())


def document_dead_lettered(doc_id: str, time: str, tenant: str = "acme") -> Message:
    """A documents.submitted record ingest dead-lettered (its producer refused the event)."""
    from schemas.documents import DocumentSubmitted

    doc = DocumentSubmitted(doc_id=doc_id, uri=f"store://sha256/{doc_id}", format="epub",
                            metadata={"tenant": tenant})
    original = Message("documents.submitted", event_bytes(doc, doc_id, time, f"sub-{doc_id}"),
                       doc_id.encode())
    record = dead_letter(original, "ingest", PermanentError("MessageSizeTooLargeError", "big"),
                         3)
    return Message(record.topic, record.value, record.key, 0, 0, tuple(record.headers))
