"""The scoring stage on its topic: an accepted-answer envelope in, one scored event out."""

from __future__ import annotations

import orjson
import pytest

from schemas.answers import AnswerAccepted, AnswerSubmitted
from schemas.envelope import encode, make_event, payload_json
from schemas.scoring import AnswerScored
from schemas.topics import ANSWERS_ACCEPTED, ANSWERS_SCORED
from schemas.trusted import build, passed_on
from services.runtime.stage import Message, PermanentError
from services.scoring.logic import score_answer
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


@pytest.mark.parametrize("text", [
    "Magma rises [1]. Basalt cools fast [2].",
    "Magma rises [^1]. Basalt cools fast [2].\n\n[^1]: Smith. https://example.org/magma",
    "Magma rises. Basalt cools fast [2].",  # with a span citation of the first sentence
])
def test_an_answer_read_back_scores_as_its_models_even_from_an_older_writer(text: str) -> None:
    """The answer of a record read back is read as its JSON and passed on as it came (but
    for span citations and footnote definitions, read as models); the fields an older minor
    version did not write get their defaults, as models would."""
    answer = AnswerSubmitted.model_validate({
        "answer_id": "a-7",
        "query": "magma basalt",
        "text": text,
        "sources": [
            {"index": 1, "score": 2.0, "title": "Magma", "url": "https://example.org/magma",
             "chunks": [{"text": "Magma rises through the crust."}]},
            {"index": 2, "kind": "web", "score": 1.0,
             "chunks": [{"text": "Basalt cools fast."}, {"text": "Lava flows."}]},
        ],
        "answer_units": [{"id": "u1", "text": "Magma rises", "kind": "verbatim"}],
        "options": {"min_citation_score": 0.1, "max_citations": 1},
        "citations": [{"source_index": 1, "start": 0, "end": 11}] if "[1]" not in text
        and "[^1]" not in text else None,
    })
    written = orjson.loads(AnswerAccepted(
        answer=answer, submitted_event_id="s-1", size_bytes=10
    ).model_dump_json())
    older = written["answer"]
    del older["language"], older["options"]["renderings"]
    del older["sources"][0]["authors"], older["sources"][1]["chunks"][0]["href"]
    del older["answer_units"][0]["source_indexes"]
    copy = orjson.dumps(written)
    validated = AnswerAccepted.model_validate(orjson.loads(copy))
    rebuilt = build(AnswerAccepted, orjson.loads(copy))
    assert rebuilt.answer.sources[0].authors == []  # (read as models, as before)
    read_back = build(AnswerAccepted, written)
    assert type(passed_on(read_back, "answer")) is dict
    scored = payload_json(score_answer(read_back))
    # (the defaults follow the fields written, in the JSON as in the models rebuilt)
    assert scored == payload_json(score_answer(rebuilt))
    assert orjson.loads(scored) == orjson.loads(payload_json(score_answer(validated)))
