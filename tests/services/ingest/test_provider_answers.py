"""Provider responses on `answers.submitted` (`citeflow.answer.provider.v1`) and as lines of
`citeflow process --from`: normalised by ingest, rejected with a clear reason when not."""

from __future__ import annotations

from typing import Any

import orjson

from schemas.answers import AnswerAccepted, AnswerRejected, ProviderAnswer
from schemas.envelope import encode, make_event
from schemas.topics import ANSWERS_ACCEPTED, ANSWERS_REJECTED
from services.ingest.answers import admit_data, admit_provider, handle_submitted
from services.runtime.stage import Message
from tests.services.providers import fixtures as fx


def _envelope(provider: str, line: dict[str, Any]) -> bytes:
    data = ProviderAnswer.model_validate({**line, "provider": provider})
    return encode(make_event(data, subject=line["answer_id"], source="test", event_id="evt-9"))


def test_provider_event_is_normalised_and_accepted() -> None:
    value = _envelope("gemini", fx.gemini())
    assert b'"type":"citeflow.answer.provider.v1"' in value.replace(b" ", b"")
    [out] = handle_submitted(Message("answers.submitted", value, key=b"gemini-1"))
    assert out.topic == ANSWERS_ACCEPTED and isinstance(out.data, AnswerAccepted)
    answer = out.data.answer
    assert (answer.answer_id, answer.text, out.cause_id) == ("gemini-1", fx.GEMINI_TEXT, "evt-9")
    assert answer.metadata == {"tenant": "t1"}  # passed through untouched
    assert len(answer.citations or []) == 7


def test_malformed_provider_event_is_rejected_with_the_path() -> None:
    value = _envelope("bedrock", fx.line({"output": {"text": 3}}, answer_id="b-9"))
    [out] = handle_submitted(Message("answers.submitted", value, key=b"b-9"))
    assert out.topic == ANSWERS_REJECTED and isinstance(out.data, AnswerRejected)
    assert (out.data.code, out.data.path, out.data.answer_id) == (
        "invalid_provider_response", "$.data.response.output.text", "b-9")


def test_provider_event_of_an_unknown_provider_is_rejected() -> None:
    body = orjson.loads(_envelope("gemini", fx.gemini()))
    body["data"]["provider"] = "acme"
    [out] = handle_submitted(Message("answers.submitted", orjson.dumps(body), key=b"k"))
    assert isinstance(out.data, AnswerRejected)
    assert (out.data.code, out.data.path) == ("invalid_value", "$.data.provider")


def test_normalised_answer_over_a_limit_is_rejected() -> None:
    line = fx.line({"output": {"text": "x" * 200_001}})
    rejected = admit_provider(orjson.dumps(line), "bedrock", event_id="e")
    assert isinstance(rejected, AnswerRejected)
    assert rejected.code == "limit_exceeded" and "normalised bedrock answer" in rejected.path


def test_plain_answers_are_admitted_as_before() -> None:
    raw = b'{"answer_id": "a", "text": "t [1].", "sources": [{"index": 1}]}'
    accepted = admit_data(raw, event_id="e")
    assert isinstance(accepted, AnswerAccepted) and accepted.answer.citations is None
