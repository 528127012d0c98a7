"""How an answer's record is shown over HTTP: the `answer.formatted` data when formatted,
else a status document (in flight, rejected with its reason, dead-lettered with its stage
and error). Shared by `GET /v1/answers/{id}` and `POST /v1/answers?wait=`."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

import orjson
from typing_extensions import TypedDict

from services.store.api import AnswerRecord, Summary

STATUS_HEADER = "Citeflow-Status"


class AnswerStatus(TypedDict):
    """An answer that is not formatted (yet), or an item of `GET /v1/answers`."""

    answer_id: str
    tenant: str
    status: Literal["submitted", "formatted", "rejected", "dead_lettered"]
    model: str | None
    submitted_at: datetime | None
    updated_at: datetime
    reason: str | None
    detail: Mapping[str, Any] | None
    summary: Summary | None
    latency_ms: float | None
    # The model judge of the latest second opinion, and the citations where it disagrees
    # with the lexical verdict (null: no model judge has given one).
    judge: str | None
    disagreements: int | None


def location(answer_id: str) -> str:
    return f"/v1/answers/{answer_id}"


def dump(doc: object) -> bytes:
    """JSON of a response document (dataclasses as objects, times as RFC 3339 with Z)."""
    return orjson.dumps(doc, option=orjson.OPT_UTC_Z)


def status_document(record: AnswerRecord) -> AnswerStatus:
    """The status of an answer that is not (yet) formatted, or a listing item."""
    return {
        "answer_id": record.answer_id,
        "tenant": record.tenant,
        "status": record.status,
        "model": record.model,
        "submitted_at": record.submitted_at,
        "updated_at": record.updated_at,
        "reason": record.reason,
        "detail": dict(record.detail) if record.detail is not None else None,
        "summary": record.summary,
        "latency_ms": record.latency_ms,
        "judge": record.judge,
        "disagreements": record.disagreements,
    }


def answer_body(record: AnswerRecord) -> bytes:
    """The body of `GET /v1/answers/{id}`."""
    if record.status == "formatted" and record.result is not None:
        if record.judged is not None:
            return with_judgement(record.result, record.judged)
        return record.result
    return dump(status_document(record))


def with_judgement(result: bytes, judged: bytes) -> bytes:
    """The formatted result with a model judge's second opinion beside the lexical one:
    `judgement` (the `answer.judged` data) at the top, and on every citation with a
    verdict, `current`: the verdict that stands and the judge who gave it (the model's where
    it judged the citation, else the lexical one in `support`)."""
    answer = orjson.loads(result)
    judgement = orjson.loads(judged)
    by_index = {j["citation_index"]: j for j in judgement.get("judgements", [])}
    for index, citation in enumerate(answer.get("citations") or []):
        support = citation.get("support")
        if support is None:
            continue
        opinion = by_index.get(index)
        if opinion is not None and opinion["status"] == "judged":
            citation["current"] = {"verdict": opinion["verdict"], "judge": opinion["judge"],
                                   "rationale": opinion.get("rationale"),
                                   "evidence": opinion.get("evidence", [])}
        else:
            citation["current"] = {"verdict": support["verdict"], "judge": support["judge"]}
    answer["judgement"] = judgement
    return orjson.dumps(answer)


def etag(body: bytes) -> str:
    return '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'


def is_final(record: AnswerRecord | None) -> bool:
    """Whether the pipeline is done with the answer (formatted, rejected, dead-lettered)."""
    return record is not None and record.status != "submitted"
