"""Records of every topic the sink reads -> what the store keeps (and the summary numbers)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import orjson
import pytest

from schemas.answers import ANSWER_ID_PATTERN, AnswerRejected
from services.runtime.stage import Message, PermanentError
from services.store.api import DocumentRecord, ResultUpdate, Submission
from services.store.decode import decode_record, parse_time, tenant_of
from services.store.summary import summarize
from tests.services.store import records as r

T0 = "2026-11-25T10:00:00.000Z"
T1 = "2026-11-25T10:00:01.250Z"


def test_submitted_reads_envelope_and_metadata() -> None:
    data = r.answer("a-1")
    item = decode_record(r.submitted(data, T0, offset=7, partition=2))
    assert isinstance(item, Submission)
    assert (item.answer_id, item.tenant, item.model, item.event_id) == (
        "a-1", "acme", "gpt-x", "sub-a-1")
    assert item.submitted_at == datetime(2026, 11, 25, 10, 0, tzinfo=UTC)
    assert item.position is not None
    assert (item.position.topic, item.position.partition, item.position.offset) == (
        "answers.submitted", 2, 7)


def test_submitted_garbage_is_not_the_store_s_business() -> None:
    # ingest rejects it; the rejection is what the store records.
    for value in (b"\xff\xfe", b"{not json", b"[]", b'{"specversion": "1.0"}'):
        assert decode_record(Message("answers.submitted", value, b"k")) is None


def test_formatted_carries_result_summary_and_tenant() -> None:
    data = r.answer("a-2", tenant="t2", model="m2")
    item = decode_record(r.formatted(data, T1, offset=3))
    assert isinstance(item, ResultUpdate)
    assert (item.status, item.tenant, item.model, item.event_id) == (
        "formatted", "t2", "m2", "fmt-a-2")
    assert item.event_time == parse_time(T1)
    assert item.result is not None
    result = orjson.loads(item.result)
    assert result["answer_id"] == "a-2"
    assert item.summary == summarize(result)
    assert item.summary.citations == len(result["citations"]) > 0


def test_tenant_defaults() -> None:
    assert tenant_of(None) == "default"
    assert tenant_of({"tenant": 5}) == "default"
    assert tenant_of({}, {"tenant": "ext"}) == "ext"
    assert tenant_of({"tenant": "meta"}, {"tenant": "ext"}) == "meta"
    data = r.answer("a-3", tenant=None, model=None)
    item = decode_record(r.formatted(data, T1))
    assert isinstance(item, ResultUpdate)
    assert (item.tenant, item.model) == ("default", None)


def test_rejected_reads_tenant_and_time_from_the_original_bytes() -> None:
    data = r.answer("a-4", tenant="t4")
    item = decode_record(r.rejected(data, T0, offset=1, code="too_large"))
    assert isinstance(item, ResultUpdate)
    assert (item.status, item.reason, item.tenant, item.model) == (
        "rejected", "too_large", "t4", "gpt-x")
    assert item.submitted_at == parse_time(T0)
    assert item.detail is not None and item.detail["path"] == "$.data.text"
    assert "original_base64" not in item.detail


def test_dead_letter_has_stage_error_and_deterministic_id() -> None:
    data = r.answer("a-5", tenant="t5")
    message = r.dead_lettered(data, T0, offset=9, stage="spans", timestamp_ms=1_764_064_800_000)
    item = decode_record(message)
    assert isinstance(item, ResultUpdate)
    assert (item.status, item.reason, item.tenant) == ("dead_lettered", "boom_code", "t5")
    assert item.detail is not None
    assert (item.detail["stage"], item.detail["attempts"]) == ("spans", 3)
    assert item.event_time == datetime.fromtimestamp(1_764_064_800, UTC)
    assert decode_record(message) == item  # same record, same event id


def test_dead_letter_of_unreadable_bytes_still_names_the_answer_by_key() -> None:
    data = r.answer("a-6")
    message = r.dead_lettered(data, T0)._replace(value=b"\xff not json")
    item = decode_record(message)
    assert isinstance(item, ResultUpdate)
    assert (item.answer_id, item.tenant, item.status) == ("a-6", "default", "dead_lettered")


def test_rejections_of_inputs_without_an_answer_id_are_kept_one_per_input() -> None:
    first = decode_record(r.unkeyed_rejection(b"{not json", 2, 41))
    second = decode_record(r.unkeyed_rejection(b"{not json", 2, 42))
    assert isinstance(first, ResultUpdate) and isinstance(second, ResultUpdate)
    assert (first.answer_id, first.status, first.tenant) == (
        "@answers.submitted:2:41", "rejected", "default")
    assert first.reason and first.detail is not None and first.detail["position"] == \
        "answers.submitted:2:41"
    assert second.answer_id == "@answers.submitted:2:42"
    assert not re.match(ANSWER_ID_PATTERN, first.answer_id)  # never a submitted answer's
    # No key and no position in the rejection: where the rejection itself was read.
    bare = AnswerRejected(code="invalid_json", message="bad", path="$", original_base64="",
                          size_bytes=0)
    value = r.event_bytes(bare, "", T0, "rej-bare")
    item = decode_record(Message("answers.rejected", value, None, 1, 7))
    assert isinstance(item, ResultUpdate) and item.answer_id == "@answers.rejected:1:7"


def test_dead_letter_without_an_answer_id_is_kept_under_its_input() -> None:
    message = r.dead_lettered(r.answer("a-8"), T0)._replace(value=b"\xff not json", key=None)
    item = decode_record(message)
    assert isinstance(item, ResultUpdate)
    assert (item.answer_id, item.status) == ("@answers.scored:0:0", "dead_lettered")
    again = decode_record(message)
    assert isinstance(again, ResultUpdate)
    assert (again.answer_id, again.event_id) == (item.answer_id, item.event_id)


def test_poison_records_raise_permanent_error() -> None:
    with pytest.raises(PermanentError):
        decode_record(Message("answers.formatted", b"{garbage", b"x"))
    with pytest.raises(PermanentError):  # a .dlq record without dlq headers
        decode_record(Message("answers.scored.dlq", b"{}", b"x"))
    submitted = r.submitted(r.answer("a-7"), T0)
    with pytest.raises(PermanentError):  # another event type on answers.rejected
        decode_record(submitted._replace(topic="answers.rejected"))


def test_documents() -> None:
    ingested = decode_record(r.document_ingested("d-1", T0, tenant="t9"))
    assert isinstance(ingested, DocumentRecord)
    assert (ingested.status, ingested.tenant, ingested.sections, ingested.chunks) == (
        "ingested", "t9", 1, 0)
    rejected = decode_record(r.document_rejected("d-2", T1))
    assert isinstance(rejected, DocumentRecord)
    assert (rejected.status, rejected.reason) == ("rejected", "not_a_zip")


def test_other_topics_are_ignored() -> None:
    assert decode_record(Message("answers.scored", b"{}", b"k")) is None


def test_summary_counts_on_a_hand_built_result() -> None:
    data = {
        "citations": [{"valid": True}, {"valid": False}, {"valid": True, "support": {
            "verdict": "supported"}}, {"valid": True, "support": {"verdict": "unsupported"}}],
        "coverage": {"sentences_total": 5, "sentences_cited": 3, "sentence_ratio": 0.6},
        "answer_units": {"units": [{"downgraded": True}, {"downgraded": False}, {}]},
        "sources": [{"cited": True}, {"cited": False}, {"cited": True}],
        "problems": [{"code": "quote_not_found"}],
    }
    s = summarize(data)
    assert (s.citations, s.invalid_citations, s.sentences, s.uncited_sentences) == (4, 1, 5, 2)
    assert (s.coverage, s.downgraded_quotes, s.sources_supplied, s.sources_cited) == (
        0.6, 1, 3, 2)
    assert s.problems == 1
    assert (s.citation_recall, s.citation_precision) == (None, None)
    assert (s.supported_citations, s.unsupported_citations) == (1, 1)
    quality = summarize({**data, "quality": {
        "citation_recall": 0.5, "citation_precision": 0.75,
        "supported": 3, "partial": 1}})
    assert (quality.citation_recall, quality.citation_precision) == (0.5, 0.75)
    assert (quality.supported_citations, quality.unsupported_citations) == (3, 0)
    empty = summarize({})
    assert (empty.citations, empty.coverage, empty.supported_citations) == (0, None, None)


def test_downgraded_quote_counted_from_a_real_result() -> None:
    data = r.answer("a-8", verbatim_units=2)
    data["answer_units"][0]["quote"] = "words that appear in no source at all, anywhere"
    result = orjson.loads(r.formatted_model(data).model_dump_json())
    assert summarize(result).downgraded_quotes >= 1


def test_a_worked_marker_on_a_dead_letter_topic_is_not_stored() -> None:
    # `citeflow dlq drain`/`purge` note a worked letter on its own topic; not a dead letter.
    for topic in ("answers.accepted.dlq", "documents.submitted.dlq"):
        marker = Message(topic, b"", b"a-1", 0, 9, [("dlq_worked", b"3"),
                                                      ("dlq_outcome", b"redriven")])
        assert decode_record(marker) is None
