"""The scoring stage on its topic: an accepted-answer envelope in, one scored event out."""

from __future__ import annotations

import pytest

from schemas.answers import AnswerAccepted, AnswerSubmitted
from schemas.envelope import encode, make_event
from schemas.scoring import AnswerScored
from schemas.topics import ANSWERS_ACCEPTED, ANSWERS_SCORED
from services.runtime.stage import Message, PermanentError
from services.scoring.stage import STAGE


def test_stage_scores_an_accepted_answer() -> None:
    answer = AnswerSubmitted.model_validate(
        {
            "answer_id": "a-9",
            "query": "magma",
            "text": "Magma rises [1].",
            "sources": [{"index": 1, "score": 2.0, "chunks": [{"text": "Magma rises."}]}],
        }
    )
    event = make_event(
        AnswerAccepted(answer=answer, submitted_event_id="s-1", size_bytes=10),
        subject="a-9",
        source="test",
        event_id="acc-1",
        traceparent="00-1-2-01",
    )
    [out] = STAGE.handle(Message(ANSWERS_ACCEPTED, encode(event), key=b"a-9"))
    assert (out.topic, out.subject, out.cause_id, out.traceparent) == (
        ANSWERS_SCORED, "a-9", "acc-1", "00-1-2-01",
    )
    assert isinstance(out.data, AnswerScored)
    assert out.data.passage_sources == [1] and out.data.scores[0].support == 1.0
    assert STAGE.input_topics == (ANSWERS_ACCEPTED,) and STAGE.output_topics == (ANSWERS_SCORED,)


def test_stage_dead_letters_unreadable_input() -> None:
    with pytest.raises(PermanentError):
        STAGE.handle(Message(ANSWERS_ACCEPTED, b"not an event"))
