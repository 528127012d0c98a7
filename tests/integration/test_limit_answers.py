"""Answers at the door's limits through the five stage processes on the embedded broker: the
longest text, the most sources, the most chunks, the most citations, all together, and
chunks without sentence ends, each as heavy as ingest accepts, reach `answers.formatted`;
every event built for them is within EVENT_MULTIPLE times the answer's weight, and one a
little heavier is rejected at the door."""

from __future__ import annotations

import orjson
import pytest

from services.ingest.budget import EVENT_MULTIPLE, MAX_WEIGHT
from tests.integration.conftest import Harness
from tests.integration.limit_answers import SHAPES, limit_answer, weight_of

pytestmark = pytest.mark.integration

_HOPS = ("answers.accepted", "answers.scored", "answers.cited", "answers.resolved",
         "answers.formatted")


def test_answers_at_the_limit_reach_a_result(harness: Harness, pipeline_specs: list[str]) -> None:
    harness.create_topics(pipeline_specs)
    for spec in pipeline_specs:
        harness.start(spec)
    answers = [limit_answer(kind) for kind in SHAPES]
    weights = {a["answer_id"]: weight_of(a) for a in answers}
    assert all(weight <= MAX_WEIGHT for weight in weights.values()), weights
    over = dict(limit_answer("sources"), answer_id="limit-over")
    over["sources"][0]["chunks"].append(
        {"text": "word " * ((MAX_WEIGHT - weight_of(over)) // 5 + 1024)})
    assert weight_of(over) > MAX_WEIGHT
    harness.submit([*answers, over])
    formatted = harness.wait_for_keys("answers.formatted", set(weights))
    for record in formatted:
        data = orjson.loads(record.value)["data"]
        assert data["answer_id"] in weights and data["renderings"]["html"]
    (rejected,) = [orjson.loads(r.value)["data"] for r in harness.read("answers.rejected")]
    assert (rejected["answer_id"], rejected["code"]) == ("limit-over", "too_large")
    for topic in _HOPS:
        for record in harness.read(topic):
            answer_id = record.key.decode()
            assert len(record.value) <= EVENT_MULTIPLE * weights[answer_id], (topic, answer_id)
    for topic in ("answers.submitted", *_HOPS[:-1]):
        assert not harness.read(f"{topic}.dlq"), topic
