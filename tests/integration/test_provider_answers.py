"""Provider-native citations over the broker: a `citeflow.answer.provider.v1`
event on `answers.submitted` is normalised by the ingest process and comes out of the five
stage processes as the same `answer.formatted` the in-process pipeline makes of the same
line; a malformed provider response is rejected with its reason and its original bytes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest

from schemas.answers import ProviderAnswer
from schemas.envelope import encode, headers_for, make_event
from services.pipeline import process_answer
from services.runtime.dead_letters import Record
from tests.integration.conftest import Harness, decode_b64
from tests.services.providers import fixtures

pytestmark = pytest.mark.integration

PROVIDER_LINES: dict[str, Callable[[], dict[str, Any]]] = {
    "anthropic": fixtures.anthropic,
    "openai": fixtures.openai_responses,
    "gemini": fixtures.gemini,
    "cohere": fixtures.cohere,
    "perplexity": fixtures.perplexity,
    "bedrock": fixtures.bedrock,
    "langchain": fixtures.langchain,
}


def _record(provider: str, line: dict[str, Any]) -> Record:
    event = make_event(ProviderAnswer.model_validate({**line, "provider": provider}),
                       subject=line["answer_id"], source="tests/provider")
    return Record("answers.submitted", encode(event), line["answer_id"].encode(),
                  headers_for(event))


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    return {k: data[k] for k in ("text", "citations", "sentences", "sentence_map", "links",
                                 "answer_units", "renderings")}


def test_provider_events_flow_through_the_stage_processes(
    harness: Harness, pipeline_specs: list[str]
) -> None:
    harness.create_topics(pipeline_specs)
    for spec in pipeline_specs:
        harness.start(spec)
    lines = {provider: {**make(), "answer_id": f"prov-{provider}"}
             for provider, make in PROVIDER_LINES.items()}
    broken = {"answer_id": "prov-broken", "response": {"content": "not a list of blocks"}}
    harness.publish([_record(p, line) for p, line in lines.items()]
                    + [_record("anthropic", broken)])

    formatted = {r.key.decode(): orjson.loads(r.value)["data"]
                 for r in harness.wait_for_keys("answers.formatted", {l["answer_id"]
                                                                      for l in lines.values()})}
    for provider, line in lines.items():
        got = formatted[line["answer_id"]]
        assert got["citations"], provider
        expected = process_answer(orjson.dumps(line), event_id="x", provider=provider)
        assert _comparable(got) == _comparable(expected.model_dump(mode="json")), provider

    (rejected,) = [orjson.loads(r.value)["data"] for r in
                   harness.wait_for_keys("answers.rejected", {"prov-broken"})
                   if r.key == b"prov-broken"]
    assert rejected["code"] == "invalid_provider_response"
    assert rejected["path"].startswith("$.data.response")
    original = orjson.loads(decode_b64(rejected["original_base64"]))
    assert original["type"] == "citeflow.answer.provider.v1"
    assert original["data"]["response"] == broken["response"]
