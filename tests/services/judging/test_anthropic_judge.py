"""The Anthropic Messages judge against a fake Anthropic server on a real socket."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest

from services.judging.anthropic_judge import API_VERSION, AnthropicJudge
from services.judging.judge import JudgeConfigError
from services.judging.refine import Refiner
from services.judging.settings import refiner_from_env
from services.judging.transport import Transport
from services.runtime.retry import RetryPolicy
from tests.services.judging.answers import tower_answer
from tests.services.judging.fake_servers import (
    FakeJudgeServer,
    Reply,
    anthropic_error,
    anthropic_message,
)


@pytest.fixture
def server() -> Iterator[FakeJudgeServer]:
    with FakeJudgeServer("anthropic") as fake:
        yield fake


def _refiner(server: FakeJudgeServer, sleeps: list[float] | None = None) -> Refiner:
    transport = Transport(httpx.Client(timeout=10), RetryPolicy(3, 10, 50),
                          sleep=(sleeps if sleeps is not None else []).append)
    return Refiner(AnthropicJudge(transport, "judge-model", server.base_url, api_key="ak"),
                   scope="all")


def test_a_messages_call_judges_the_batch(server: FakeJudgeServer) -> None:
    judged = asyncio.run(_refiner(server).refine(tower_answer()))
    assert judged.judge == "anthropic:judge-model"
    assert [j.status for j in judged.judgements] == ["judged"] * 3
    assert (judged.cost.input_tokens, judged.cost.output_tokens) == (410, 55)
    request = next(r for r in server.requests if r["method"] == "POST")
    assert request["headers"]["x-api-key"] == "ak"
    assert request["headers"]["anthropic-version"] == API_VERSION
    assert request["body"]["system"].startswith("You check whether")
    assert [m["role"] for m in request["body"]["messages"]] == ["user"]


def test_overloaded_529_and_429_are_retried(server: FakeJudgeServer) -> None:
    sleeps: list[float] = []
    server.script += [Reply(529, anthropic_error("overloaded_error", "Overloaded")),
                      Reply(429, anthropic_error("rate_limit_error", "slow down"),
                            {"retry-after": "2"})]
    judged = asyncio.run(_refiner(server, sleeps).refine(tower_answer()))
    assert [j.status for j in judged.judgements] == ["judged"] * 3
    assert len(sleeps) == 2 and sleeps[1] == 2.0


@pytest.mark.parametrize(("reply", "status", "detail"), [
    (Reply(body=anthropic_message("", stop_reason="refusal")), "refused", "declined"),
    (Reply(body=anthropic_message('{"judgements": [', stop_reason="max_tokens")), "rejected",
     "max_tokens"),
    (Reply(body=anthropic_message("I think they are all supported.")), "rejected", "not JSON"),
    (Reply(body=b"<html>Bad gateway</html>"), "rejected", "no content"),
    (Reply(400, anthropic_error("invalid_request_error", "prompt is too long")), "rejected",
     "prompt is too long"),
])
def test_an_unusable_reply_keeps_the_lexical_verdicts(
        server: FakeJudgeServer, reply: Reply, status: str, detail: str) -> None:
    server.script.append(reply)
    judged = asyncio.run(_refiner(server).refine(tower_answer()))
    assert {j.status for j in judged.judgements} == {status}
    assert all(detail in (j.detail or "") and j.judge == "lexical" for j in judged.judgements)


def test_a_fenced_json_reply_is_read(server: FakeJudgeServer) -> None:
    asyncio.run(_refiner(server).refine(tower_answer()))
    user = server.posts()[0]["messages"][0]["content"]
    ids = [i["id"] for i in json.loads(user.split("\n")[2])["items"]]
    entries = [{"id": k, "verdict": "unsupported", "rationale": "No.", "evidence": []}
               for k in ids]
    server.script.append(Reply(body=anthropic_message(
        "```json\n" + json.dumps({"judgements": entries}) + "\n```")))
    judged = asyncio.run(_refiner(server).refine(tower_answer(answer_id="f2")))
    assert {j.status for j in judged.judgements} == {"judged"}


def test_an_unknown_model_is_an_error_at_start_up(server: FakeJudgeServer) -> None:
    env = {"CITEFLOW_JUDGING": "anthropic:claude-none", "CITEFLOW_JUDGING_BASE_URL":
           server.base_url}
    with pytest.raises(JudgeConfigError, match="'claude-none' does not exist"):
        refiner_from_env(env)
    assert refiner_from_env({**env, "CITEFLOW_JUDGING": "anthropic:judge-model"}).judge.name \
        == "anthropic:judge-model"
