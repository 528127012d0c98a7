"""The CloudEvents envelope: round-trips, headers, deterministic ids, decode errors."""

from __future__ import annotations

import orjson
import pytest

from schemas.answers import AnswerSubmitted, Chunk, Source
from schemas.envelope import (
    EventDecodeError,
    EventTooLarge,
    decode,
    derived_event_id,
    encode,
    headers_for,
    make_event,
    payload_json,
)
from schemas.scoring import AnswerScored
from services.bench.workload import bench_answer
from services.runtime.topic_specs import MAX_RECORD_BYTES


def _answer() -> AnswerSubmitted:
    return AnswerSubmitted.model_validate(bench_answer(words=120, citations=6, sources=3))


def test_round_trip_keeps_every_attribute_and_the_data() -> None:
    event = make_event(_answer(), subject="bench-0", source="test", traceparent="00-ab-cd-01")
    decoded = decode(encode(event))
    assert decoded.data == event.data
    assert (decoded.id, decoded.type, decoded.subject, decoded.traceparent) == (
        event.id, "citeflow.answer.submitted.v1", "bench-0", "00-ab-cd-01")
    body = orjson.loads(encode(event))
    assert body["specversion"] == "1.0" and body["datacontenttype"] == "application/json"


def test_headers_mirror_the_attributes() -> None:
    event = make_event(_answer(), subject="bench-0", source="test", traceparent="00-ab-cd-01")
    headers = dict(headers_for(event))
    assert headers["ce_type"] == b"citeflow.answer.submitted.v1"
    assert headers["ce_id"] == event.id.encode()
    assert headers["ce_subject"] == b"bench-0"
    assert headers["traceparent"] == b"00-ab-cd-01"


def test_derived_ids_are_deterministic_per_input_and_stage() -> None:
    assert derived_event_id("e1", "scoring") == derived_event_id("e1", "scoring")
    assert derived_event_id("e1", "scoring") != derived_event_id("e1", "citations")
    assert derived_event_id("e1", "scoring") != derived_event_id("e2", "scoring")


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (b"\xff\xfe{}", "invalid_utf8"),
        (b"{not json", "invalid_json"),
        (b"[1, 2]", "not_an_envelope"),
        (b'{"specversion": "1.0"}', "not_an_envelope"),
        (orjson.dumps({"specversion": "0.3", "id": "1", "source": "s", "type": "t",
                       "subject": "a", "data": {}}), "not_an_envelope"),
        (orjson.dumps({"specversion": "1.0", "id": "1", "source": "s",
                       "type": "com.example.other.v1", "subject": "a", "data": {}}),
         "unknown_type"),
        (orjson.dumps({"specversion": "1.0", "id": "1", "source": "s",
                       "type": "citeflow.answer.submitted.v9", "subject": "a", "data": {}}),
         "unknown_version"),
        (orjson.dumps({"specversion": "1.0", "id": "1", "source": "s",
                       "type": "citeflow.answer.submitted.v1", "subject": "a",
                       "data": {"answer_id": "a", "text": 5, "sources": []}}), "invalid_data"),
    ],
)
def test_decode_errors_have_stable_codes(value: bytes, code: str) -> None:
    with pytest.raises(EventDecodeError) as info:
        decode(value)
    assert info.value.code == code
    assert info.value.message


def test_invalid_data_points_at_the_field() -> None:
    value = orjson.dumps({"specversion": "1.0", "id": "1", "source": "s",
                          "type": "citeflow.answer.submitted.v1", "subject": "a",
                          "data": {"answer_id": "a", "text": "t", "sources": [{"index": "x"}]}})
    with pytest.raises(EventDecodeError) as info:
        decode(value)
    assert info.value.path == "$.data.sources[0].index"
    assert info.value.subject == "a"


def test_decode_rejects_an_unexpected_type() -> None:
    event = make_event(_answer(), subject="a", source="test")
    with pytest.raises(EventDecodeError) as info:
        decode(encode(event), expected=AnswerScored)
    assert info.value.code == "unexpected_type"


@pytest.mark.parametrize("cause", ["e-1", "in:0:17", "6f9619ff-8b86-d011-b42d-00cf4fc964ff", "é"])
def test_derived_ids_are_uuid5_of_stage_type_and_input(cause: str) -> None:
    import uuid

    from schemas.envelope import _ID_NAMESPACE

    etype = "citeflow.answer.accepted.v1"
    expected = str(uuid.uuid5(_ID_NAMESPACE, f"ingest|{etype}|{cause}"))
    assert derived_event_id(cause, "ingest", etype) == expected


def test_encoding_is_the_model_json_inside_the_envelope() -> None:
    from schemas.answers import AnswerRejected

    rejected = AnswerRejected(answer_id=None, code="c", message="m\u2028\"x\" é", path="$",
                              original_base64="AA==", size_bytes=1)
    for data in (_answer(), rejected):
        event = make_event(data, subject="a-2 é", source="citeflow/x", event_id="i",
                           traceparent="00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        body = orjson.loads(encode(event))
        assert body["data"] == orjson.loads(data.model_dump_json())
        assert body["subject"] == "a-2 é" and body["traceparent"].startswith("00-")


def test_an_event_over_the_record_limit_is_never_encoded() -> None:
    """The broker would refuse it: encoding it fails with the event's type, subject and size,
    so the stage's input becomes a dead letter saying so."""
    answer = AnswerSubmitted(answer_id="big", text="x", sources=[
        Source(index=1, chunks=[Chunk(text="y" * (MAX_RECORD_BYTES // 2))]),
        Source(index=2, chunks=[Chunk(text="z" * (MAX_RECORD_BYTES // 2))])])
    event = make_event(answer, subject="big", source="test")
    with pytest.raises(EventTooLarge, match="citeflow.answer.submitted.v1 event of 'big'"):
        encode(event)
    with pytest.raises(EventTooLarge):
        encode(event, payload_json(answer))
    small = make_event(AnswerSubmitted(answer_id="s", text="x", sources=[]), subject="s",
                       source="test")
    assert len(encode(small)) < 1024
