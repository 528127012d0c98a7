"""The judging stage as the runtime loads it: registered by name, its judge checked at
start-up (an unknown model is one LookupError, never a crash per answer), its handler
from an `answer.formatted` record to an `answer.judged` output, its metrics served with the
runtime's."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from schemas.envelope import encode, make_event
from schemas.judged import AnswerJudged
from schemas.topics import ANSWERS_FORMATTED, ANSWERS_JUDGED
from services.runtime.metrics import StageMetrics
from services.runtime.stage import Message, PermanentError
from services.stages import JUDGING_NAMES, optional_stage_names, stage
from tests.services.judging.answers import tower_answer
from tests.services.judging.fake_servers import FakeJudgeServer


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeJudgeServer]:
    with FakeJudgeServer("openai") as fake:
        monkeypatch.setenv("CITEFLOW_JUDGING", "openai:judge-model")
        monkeypatch.setenv("CITEFLOW_JUDGING_BASE_URL", fake.base_url)
        monkeypatch.setenv("CITEFLOW_JUDGING_SCOPE", "all")
        sys.modules.pop("services.judging.stage", None)
        yield fake
        sys.modules.pop("services.judging.stage", None)


def test_the_stage_turns_a_formatted_answer_into_its_judgement(
        server: FakeJudgeServer) -> None:
    judging = stage("judging")
    assert optional_stage_names() == JUDGING_NAMES
    assert (judging.input_topics, judging.output_topics) == ((ANSWERS_FORMATTED,),
                                                             (ANSWERS_JUDGED,))
    answer = tower_answer(metadata={"tenant": "acme"})
    event = make_event(answer, subject=answer.answer_id, source="test", event_id="e-1")
    [output] = judging.handle(Message(ANSWERS_FORMATTED, encode(event), b"a1"))
    assert output.topic == ANSWERS_JUDGED and output.cause_id == "e-1"
    assert isinstance(output.data, AnswerJudged) and len(output.data.judgements) == 3
    metrics = StageMetrics("judging")
    for collector in judging.collectors:
        metrics.registry.register(collector)
    assert metrics.registry.get_sample_value("citeflow_judge_requests_total", {
        "judge": "openai:judge-model", "tenant": "acme", "outcome": "ok"}) == 1
    assert metrics.registry.get_sample_value("citeflow_judge_opinions_total", {
        "judge": "openai:judge-model", "tenant": "acme", "status": "judged"}) == 3
    with pytest.raises(PermanentError):
        judging.handle(Message(ANSWERS_FORMATTED, b"not an event", b"a1"))


def test_an_unknown_model_stops_the_stage_at_load(server: FakeJudgeServer,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEFLOW_JUDGING", "openai:missing")
    with pytest.raises(LookupError, match="'missing' does not exist"):
        stage("judging")
    assert server.posts() == []  # no answer was ever judged


def test_without_a_judge_there_is_no_judging_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEFLOW_JUDGING", raising=False)
    assert optional_stage_names() == ()
    sys.modules.pop("services.judging.stage", None)
    with pytest.raises(LookupError, match="CITEFLOW_JUDGING is not set"):
        stage("judging")
