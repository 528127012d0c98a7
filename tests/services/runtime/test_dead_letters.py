"""Dead-letter records: original bytes unchanged, the failure and origin in headers."""

from __future__ import annotations

from services.runtime.dead_letters import dead_letter, error_code, read_dead_letter
from services.runtime.stage import Message, PermanentError, TransientError


def _message() -> Message:
    return Message("answers.scored", b"\xff\x00 value", b"a-1", 3, 42,
                   (("ce_id", b"e-1"), ("dlq_stage", b"old")))


def test_dead_letter_keeps_key_value_and_says_why_and_where() -> None:
    record = dead_letter(_message(), "citations", PermanentError("unknown_version", "v9"), 1)
    assert record.topic == "answers.scored.dlq"
    assert (record.key, record.value) == (b"a-1", b"\xff\x00 value")
    headers = dict(record.headers)
    assert headers["dlq_stage"] == b"citations"
    assert headers["dlq_error_type"] == b"PermanentError"
    assert headers["dlq_error_code"] == b"unknown_version"
    assert headers["dlq_error_message"] == b"v9"
    assert headers["dlq_attempts"] == b"1"
    assert headers["dlq_original_topic"] == b"answers.scored"
    assert headers["dlq_original_partition"] == b"3"
    assert headers["dlq_original_offset"] == b"42"
    assert ("ce_id", b"e-1") in record.headers
    # A dead letter of a dead letter does not carry the old dlq_ headers twice.
    assert [k for k, _ in record.headers].count("dlq_stage") == 1


def test_read_back() -> None:
    record = dead_letter(_message(), "spans", ValueError("boom"), 5)
    info = read_dead_letter(record.headers)
    assert info is not None
    assert (info.stage, info.error_type, info.error_code, info.attempts) == (
        "spans", "ValueError", "ValueError", 5)
    assert (info.original_topic, info.original_partition, info.original_offset) == (
        "answers.scored", 3, 42)
    assert read_dead_letter([("ce_id", b"x")]) is None


def test_long_error_messages_are_truncated() -> None:
    record = dead_letter(_message(), "s", RuntimeError("x" * 10_000), 1)
    assert len(dict(record.headers)["dlq_error_message"]) == 4_000


def test_error_code() -> None:
    assert error_code(PermanentError("too_large", "m")) == "too_large"
    assert error_code(TransientError("m")) == "TransientError"
