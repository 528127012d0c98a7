"""Answer admission: every bad input is a rejection with a stable code, a path, the answer_id
when readable and the original bytes; valid input (v1, or v0 upcast) is accepted."""

from __future__ import annotations

import base64
import copy
from typing import Any

import orjson
import pytest

from schemas.answers import AnswerAccepted, AnswerRejected, AnswerSubmitted
from schemas.topics import ANSWERS_ACCEPTED, ANSWERS_REJECTED
from services.bench.workload import bench_answer
from services.ingest.answers import (
    ENVELOPE_ALLOWANCE,
    MAX_BYTES_ENV,
    admit_data,
    handle_submitted,
    max_answer_bytes,
)
from services.ingest.budget import answer_weight
from services.runtime.stage import Message


def _valid() -> dict[str, Any]:
    return {
        "answer_id": "ans-1",
        "query": "What is the capital?",
        "text": "Paris is the capital [1].",
        "sources": [{"index": 1, "title": "Atlas", "chunks": [{"text": "Paris is the capital."}]}],
    }


def _with(**changes: Any) -> bytes:
    data = _valid()
    data.update(changes)
    return orjson.dumps(data)


def _envelope(data: Any, ce_type: str = "citeflow.answer.submitted.v1", **extra: Any) -> bytes:
    body = {
        "specversion": "1.0",
        "id": "evt-1",
        "source": "test",
        "type": ce_type,
        "subject": "subject-1",
        "data": data,
        **extra,
    }
    return orjson.dumps(body)


def _reject(raw: bytes, **kwargs: Any) -> AnswerRejected:
    result = admit_data(raw, event_id="e-1", position="stdin:7", **kwargs)
    assert isinstance(result, AnswerRejected), result
    assert base64.b64decode(result.original_base64) == raw
    assert result.size_bytes == len(raw)
    assert result.original_event_id == "e-1" and result.position == "stdin:7"
    assert result.message and result.errors
    assert result.errors[0].code == result.code and result.errors[0].path == result.path
    return result


def test_valid_answer_is_accepted() -> None:
    raw = _with()
    result = admit_data(raw, event_id="e-1")
    assert isinstance(result, AnswerAccepted)
    assert result.answer.answer_id == "ans-1"
    assert result.submitted_event_id == "e-1" and result.size_bytes == len(raw)
    assert result.upcast_from is None


def test_benchmark_answer_is_accepted() -> None:
    result = admit_data(orjson.dumps(bench_answer()), event_id="bench")
    assert isinstance(result, AnswerAccepted)
    assert len(result.answer.sources) == 10


@pytest.mark.parametrize(
    ("raw", "code", "path", "answer_id"),
    [
        (b'{"answer_id": "a", "text": "x", "sources": [', "invalid_json", "$", None),
        (b"", "invalid_json", "$", None),
        (b'{"answer_id": "a", "text": "caf\xe9", "sources": []}', "invalid_utf8", "$", None),
        (b"\xef\xbb\xbf{}", "invalid_json", "$", None),
        (b"[1, 2]", "not_an_object", "$", None),
        (b'"just a string"', "not_an_object", "$", None),
        (b"null", "not_an_object", "$", None),
        (_with(text=5), "wrong_type", "$.text", "ans-1"),
        (_with(sources={"index": 1}), "wrong_type", "$.sources", "ans-1"),
        (_with(sources=[{"index": "one"}]), "wrong_type", "$.sources[0].index", "ans-1"),
        (_with(sources=[{"index": 1.5}]), "wrong_type", "$.sources[0].index", "ans-1"),
        (_with(sources=[{"index": 0}]), "invalid_value", "$.sources[0].index", "ans-1"),
        (
            _with(sources=[{"index": 1, "kind": "book"}]),
            "invalid_value", "$.sources[0].kind", "ans-1",
        ),
        (
            _with(sources=[{"index": 1, "chunks": [{"page": 1}]}]),
            "missing_field", "$.sources[0].chunks[0].text", "ans-1",
        ),
        (_with(answer_id=17), "wrong_type", "$.answer_id", None),
        (_with(answer_id="has space"), "invalid_answer_id", "$.answer_id", "has space"),
        (_with(answer_id=""), "invalid_answer_id", "$.answer_id", None),
        (_with(answer_id="x" * 201), "invalid_answer_id", "$.answer_id", None),
        (
            _with(sources=[{"index": 2}, {"index": 2}]),
            "duplicate_source_index", "$.sources", "ans-1",
        ),
        (_with(text="x" * 200_001), "limit_exceeded", "$.text", "ans-1"),
        (
            _with(sources=[{"index": i} for i in range(1, 1002)]),
            "limit_exceeded", "$.sources", "ans-1",
        ),
        (
            b'{"answer_id": "ans-1", "text": "t", "sources": [{"index": 1, "score": NaN}]}',
            "invalid_json", "$.sources[0].score", "ans-1",
        ),
        (
            b'{"answer_id": "ans-1", "text": "t", "sources": [], "metadata": {"a": [1e999]}}',
            "invalid_json", "$.metadata.a[0]", "ans-1",
        ),
    ],
)
def test_bad_data_is_rejected(raw: bytes, code: str, path: str, answer_id: str | None) -> None:
    rejected = _reject(raw)
    assert (rejected.code, rejected.path, rejected.answer_id) == (code, path, answer_id)


def test_missing_fields_are_each_reported() -> None:
    rejected = _reject(b'{"answer_id": "ans-1"}')
    assert rejected.code == "missing_field"
    assert {(e.code, e.path) for e in rejected.errors} == {
        ("missing_field", "$.text"),
        ("missing_field", "$.sources"),
    }
    assert "(and 1 more)" in rejected.message


def test_over_size_is_rejected_before_parsing() -> None:
    raw = b"{" + b" " * 100 + b"not even json"
    rejected = _reject(raw, max_bytes=64)
    assert (rejected.code, rejected.path, rejected.answer_id) == ("too_large", "$", None)
    assert "64" in rejected.message


def _weight(raw: bytes) -> int:
    """The answer's weight, measured and counted (services.ingest.budget)."""
    return answer_weight(AnswerSubmitted.model_validate_json(raw), 0).total


def test_size_limit_allows_input_at_the_limit() -> None:
    """The limit is on the answer's weight: its JSON as produced, its text, sentences and
    citations; an answer weighing the limit is admitted, one byte less is too little."""
    raw = _with()
    limit = _weight(raw)
    assert limit > len(raw)
    assert isinstance(admit_data(raw, event_id="e", max_bytes=limit), AnswerAccepted)
    rejected = _reject(raw, max_bytes=limit - 1)
    assert (rejected.code, rejected.path, rejected.answer_id) == ("too_large", "$", "ans-1")
    assert f"weighs {limit} bytes" in rejected.message and "1 citations" in rejected.message


def test_reported_errors_are_capped() -> None:
    raw = _with(sources=[{"index": "x"} for _ in range(200)])
    rejected = _reject(raw)
    assert len(rejected.errors) == 50
    assert "(and 199 more)" in rejected.message


def test_deeply_nested_json_is_rejected_not_raised() -> None:
    raw = b'{"answer_id": "a", "metadata": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    assert _reject(raw).code == "invalid_json"


@pytest.mark.parametrize("depth", [64, 300, 1000])
def test_metadata_nested_too_deep_is_rejected(depth: int) -> None:
    nested = b"[" * depth + b"1" + b"]" * depth
    raw = b'{"answer_id": "a", "text": "t", "sources": [], "metadata": {"k": ' + nested + b"}}"
    rejected = _reject(raw)
    assert rejected.code == "limit_exceeded" and rejected.answer_id == "a"
    assert rejected.path.startswith("$.metadata.k[0][0]")


def test_metadata_nested_within_the_limit_is_accepted() -> None:
    nested = b"[" * 63 + b"1" + b"]" * 63
    raw = b'{"answer_id": "a", "text": "t", "sources": [], "metadata": {"k": ' + nested + b"}}"
    accepted = admit_data(raw, event_id="e")
    assert isinstance(accepted, AnswerAccepted)
    assert AnswerAccepted.model_validate_json(accepted.model_dump_json()) == accepted


# ---- the answers.submitted topic: CloudEvents envelopes ----


def _handle(value: bytes, key: bytes | None = b"key-1") -> tuple[str, Any, str, str]:
    message = Message("answers.submitted", value, key=key, partition=2, offset=41)
    outputs = handle_submitted(message)
    assert len(outputs) == 1
    out = outputs[0]
    return out.topic, out.data, out.subject, out.cause_id


def test_envelope_v1_is_accepted() -> None:
    value = _envelope(_valid(), traceparent="00-abc-def-01")
    message = Message("answers.submitted", value, key=b"ans-1")
    [out] = handle_submitted(message)
    assert out.topic == ANSWERS_ACCEPTED
    assert isinstance(out.data, AnswerAccepted)
    assert (out.subject, out.cause_id, out.traceparent) == ("ans-1", "evt-1", "00-abc-def-01")
    assert out.data.submitted_event_id == "evt-1" and out.data.size_bytes == len(value)


def test_envelope_v0_is_upcast_and_accepted() -> None:
    v0 = {
        "answer_id": "old-1",
        "question": "Capital?",
        "answer": "Paris [1].",
        "sources": [{"id": 1, "content": "Paris is the capital.", "relevance": 0.9}],
        "max_citations": 3,
    }
    topic, data, subject, cause = _handle(_envelope(v0, "citeflow.answer.submitted.v0"))
    assert topic == ANSWERS_ACCEPTED and subject == "old-1" and cause == "evt-1"
    assert data.upcast_from == 0
    answer = data.answer
    assert (answer.query, answer.text) == ("Capital?", "Paris [1].")
    assert answer.sources[0].index == 1 and answer.sources[0].score == 0.9
    assert answer.sources[0].chunks[0].text == "Paris is the capital."
    assert answer.effective_options().max_citations == 3


@pytest.mark.parametrize(
    ("value", "code", "path", "subject", "cause"),
    [
        (_envelope(_valid(), "citeflow.answer.submitted.v9"), "unknown_version", "$.type",
         "ans-1", "evt-1"),
        (_envelope(_valid(), "citeflow.document.submitted.v1"), "unexpected_type", "$.type",
         "ans-1", "evt-1"),
        (_envelope(_valid(), "com.example.other.v1"), "unknown_type", "$.type", "ans-1", "evt-1"),
        (b"{not json", "invalid_json", "$", "key-1", "answers.submitted:2:41"),
        (b'{"id": "\xff"}', "invalid_utf8", "$", "key-1", "answers.submitted:2:41"),
        (b"[]", "not_an_envelope", "$", "key-1", "answers.submitted:2:41"),
        (b'{"id": "evt-9", "data": {"answer_id": "inner"}}', "not_an_envelope",
         "$.specversion", "inner", "evt-9"),
        (_envelope({**_valid(), "text": None}), "wrong_type", "$.data.text", "ans-1", "evt-1"),
        (_envelope({**_valid(), "sources": [{"index": 1}, {"index": 1}]}),
         "duplicate_source_index", "$.data.sources", "ans-1", "evt-1"),
        (_envelope(["not", "an", "object"]), "not_an_object", "$.data", "key-1", "evt-1"),
        (_envelope({"answer_id": "v0", "sources": 5}, "citeflow.answer.submitted.v0"),
         "wrong_type", "$.data.text", "v0", "evt-1"),
        (_envelope("text", "citeflow.answer.submitted.v0"), "not_an_object", "$.data",
         "key-1", "evt-1"),
    ],
)
def test_bad_envelopes_are_rejected(
    value: bytes, code: str, path: str, subject: str, cause: str
) -> None:
    topic, data, out_subject, out_cause = _handle(value)
    assert topic == ANSWERS_REJECTED
    assert isinstance(data, AnswerRejected)
    assert (data.code, data.path, out_subject, out_cause) == (code, path, subject, cause)
    assert base64.b64decode(data.original_base64) == value
    assert (data.original_topic, data.original_partition, data.original_offset) == (
        "answers.submitted", 2, 41,
    )
    assert data.position == "answers.submitted:2:41"


def test_envelope_over_size_is_rejected() -> None:
    value = _envelope(_valid(), padding="x" * ENVELOPE_ALLOWANCE)
    [out] = handle_submitted(Message("answers.submitted", value, key=None, partition=1,
                                     offset=8), max_bytes=10)
    assert out.topic == ANSWERS_REJECTED and out.data.code == "too_large"
    # No id, key or subject read: the input's own id (keys the record, names its row).
    assert out.subject == "@answers.submitted:1:8" and out.data.answer_id is None


def test_the_limit_measures_the_answer_not_its_envelope() -> None:
    """An answer at the limit is admitted bare (the gateway's check) and in its event
    envelope (ingest's): the envelope may add ENVELOPE_ALLOWANCE bytes, not more."""
    data = orjson.dumps(_valid())
    limit = _weight(data)
    assert isinstance(admit_data(data, event_id="e", max_bytes=limit), AnswerAccepted)
    value = _envelope(_valid())
    [out] = handle_submitted(Message("answers.submitted", value), max_bytes=limit)
    assert out.topic == ANSWERS_ACCEPTED
    [out] = handle_submitted(Message("answers.submitted", value), max_bytes=limit - 1)
    assert out.topic == ANSWERS_REJECTED and out.data.code == "too_large"
    assert out.data.path == "$.data" and out.subject == "ans-1"
    padded = _envelope(_valid(), padding="x" * (limit + ENVELOPE_ALLOWANCE - len(value)))
    assert len(padded) > limit + ENVELOPE_ALLOWANCE
    [out] = handle_submitted(Message("answers.submitted", padded), max_bytes=limit)
    assert out.topic == ANSWERS_REJECTED and out.data.code == "too_large"
    assert f"{ENVELOPE_ALLOWANCE} for its event envelope" in out.data.message


def test_rejection_reads_answer_id_from_invalid_data() -> None:
    data = copy.deepcopy(_valid())
    data["sources"] = "nope"
    topic, rejected, subject, _ = _handle(_envelope(data), key=None)
    assert topic == ANSWERS_REJECTED and subject == "ans-1" and rejected.answer_id == "ans-1"


def test_rejected_output_round_trips_through_json() -> None:
    _, rejected, _, _ = _handle(b"\x00\xffgarbage")
    again = AnswerRejected.model_validate_json(rejected.model_dump_json())
    assert base64.b64decode(again.original_base64) == b"\x00\xffgarbage"


def test_envelope_with_odd_optional_attributes_is_still_accepted() -> None:
    value = _envelope(_valid(), traceparent=5, time=None)
    message = Message("answers.submitted", value, headers=[("traceparent", b"00-h-1-01")])
    [out] = handle_submitted(message)
    assert out.topic == ANSWERS_ACCEPTED and out.traceparent == "00-h-1-01"


def test_envelope_with_non_finite_number_is_rejected() -> None:
    value = _envelope(_valid()).replace(b'"index":1', b'"index":1,"score":NaN')
    topic, data, subject, cause = _handle(value)
    assert (topic, data.code, data.path, subject, cause) == (
        ANSWERS_REJECTED, "invalid_json", "$.data.sources[0].score", "ans-1", "evt-1",
    )


@pytest.mark.parametrize(
    ("configured", "expected"),
    [("1024", 1024), ("", 4 * 1024 * 1024), ("0", 4 * 1024 * 1024), ("lots", 4 * 1024 * 1024),
     ("99999999", 4 * 1024 * 1024)],
)
def test_byte_limit_is_configurable(
    monkeypatch: pytest.MonkeyPatch, configured: str, expected: int
) -> None:
    monkeypatch.setenv(MAX_BYTES_ENV, configured)
    assert max_answer_bytes() == expected


@pytest.mark.parametrize(("source", "path"), [
    ({"doc_id": "../../v1/answers"}, "$.sources[0].doc_id"),
    ({"doc_id": "a/./b"}, "$.sources[0].doc_id"),
    ({"doc_id": "%2e%2e"}, "$.sources[0].doc_id"),
    ({"doc_id": "book", "chunks": [{"text": "Paris.", "href": "OEBPS/../../x.xhtml"}]},
     "$.sources[0].chunks[0].href"),
    ({"doc_id": "book", "chunks": [{"text": "Paris.", "href": "OEBPS\\..\\x.xhtml"}]},
     "$.sources[0].chunks[0].href"),
    ({"doc_id": "book", "chunks": [{"text": "Paris."}, {"text": "Lyon.", "href": "a/%2E/b"}]},
     "$.sources[0].chunks[1].href"),
])
def test_dot_segments_in_a_doc_id_or_href_are_rejected(source: dict[str, Any],
                                                      path: str) -> None:
    """`..` in a doc_id or chunk href steered which gateway route the component fetched."""
    data = _valid()
    data["sources"][0].update(source)
    for raw in (orjson.dumps(data), _with(sources=data["sources"])):
        rejected = _reject(raw)
        assert (rejected.code, rejected.path) == ("unsafe_path", path)
        assert "'..'" in rejected.message
    [out] = handle_submitted(Message("answers.submitted", _envelope(data), key=b"ans-1"))
    assert out.topic == ANSWERS_REJECTED and out.data.path == "$.data" + path[1:]


def test_dots_inside_names_are_not_segments() -> None:
    data = _valid()
    data["sources"][0].update(doc_id="v1.2..final", chunks=[
        {"text": "Paris is the capital.", "href": "OEBPS/ch..1.xhtml"}])
    assert isinstance(admit_data(orjson.dumps(data), event_id="e", position="p"),
                      AnswerAccepted)
