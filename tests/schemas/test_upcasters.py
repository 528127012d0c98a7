"""The upcaster chain: an old version in, the current version out."""

from __future__ import annotations

import orjson
import pytest

from schemas.answers import AnswerSubmitted
from schemas.envelope import decode
from schemas.upcasters import UpcastError, upcast

V0 = {
    "answer_id": "legacy-1",
    "question": "What is the capital of France?",
    "answer": "Paris is the capital [1]. It is on the Seine [2].",
    "sources": [
        {"id": 1, "title": "France", "url": "https://example.org/fr", "content": "Paris is the capital of France.", "relevance": 4.5},
        {"id": 2, "title": "Seine", "content": "The Seine flows through Paris."},
    ],
    "min_citation_score": 0.2,
    "max_citations": 3,
}


def test_v0_answer_upcasts_to_a_valid_v1() -> None:
    data = upcast("answer.submitted", 0, 1, dict(V0))
    answer = AnswerSubmitted.model_validate(data)
    assert answer.query == V0["question"] and answer.text == V0["answer"]
    assert [s.index for s in answer.sources] == [1, 2]
    assert answer.sources[0].score == 4.5 and answer.sources[1].score is None
    assert answer.sources[0].chunks[0].text == "Paris is the capital of France."
    assert answer.effective_options().min_citation_score == 0.2
    assert answer.effective_options().max_citations == 3


def test_decode_runs_the_chain_for_an_old_envelope() -> None:
    value = orjson.dumps({"specversion": "1.0", "id": "e0", "source": "legacy", "subject": "legacy-1",
                          "type": "citeflow.answer.submitted.v0", "data": V0})
    event = decode(value)
    assert event.type == "citeflow.answer.submitted.v1"
    assert event.upcast_from == 0
    assert isinstance(event.data, AnswerSubmitted)


def test_current_version_is_left_alone() -> None:
    data = {"answer_id": "a", "text": "t", "sources": []}
    assert upcast("answer.submitted", 1, 1, data) is data


def test_a_missing_step_is_an_error() -> None:
    with pytest.raises(UpcastError):
        upcast("answer.scored", 0, 1, {})


def test_mistyped_v0_fields_are_left_for_validation_to_report() -> None:
    data = upcast("answer.submitted", 0, 1, {"answer_id": "x", "answer": "t", "sources": 5})
    assert data["sources"] == 5
    data = upcast("answer.submitted", 0, 1, {"answer_id": "x", "answer": "t", "sources": [7]})
    assert data["sources"] == [7]
