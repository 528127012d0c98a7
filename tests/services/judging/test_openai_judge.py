"""The judging stage's logic against a fake OpenAI-compatible server on a real socket: the
request it sends, the replies it reads (recorded shapes, errors, refusals, malformed JSON),
retries honouring Retry-After, timeouts, the circuit breaker, budgets, the cache, and the
bad inputs: a reply that is not JSON, a verdict outside the enum, evidence not in the
source, a 1 MB reply, a 4 MB source, a tenant over budget, an unknown model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.judging.breaker import CircuitBreaker
from services.judging.budget import BudgetLimits, Budgets
from services.judging.judge import JudgeConfigError
from services.judging.openai_judge import OpenAICompatibleJudge
from services.judging.refine import Prices, Refiner
from services.judging.settings import refiner_from_env
from services.judging.transport import Transport
from services.runtime.retry import RetryPolicy
from tests.services.judging.answers import PARIS, TOWER, formatted, tower_answer
from tests.services.judging.fake_servers import (
    FakeJudgeServer,
    Reply,
    openai_completion,
    openai_error,
)


@pytest.fixture
def server() -> Iterator[FakeJudgeServer]:
    with FakeJudgeServer("openai") as fake:
        yield fake


def _refiner(server: FakeJudgeServer, *, timeout: float = 10.0, attempts: int = 3,
             sleeps: list[float] | None = None, **options: Any) -> Refiner:
    recorded = sleeps if sleeps is not None else []
    transport = Transport(httpx.Client(timeout=timeout), RetryPolicy(attempts, 10, 50),
                          max_retry_after_s=30, sleep=recorded.append)
    judge = OpenAICompatibleJudge(transport, "judge-model", server.base_url, api_key="sk-test")
    return Refiner(judge, **{"scope": "all", **options})


def _content(server: FakeJudgeServer, judgements: list[dict[str, Any]]) -> Reply:
    return Reply(body=openai_completion(json.dumps({"judgements": judgements})))


def _ids(server: FakeJudgeServer) -> list[str]:
    """The item ids of the last request, in order."""
    user = server.posts()[-1]["messages"][1]["content"]
    data = user.split("\n")[2]
    return [item["id"] for item in json.loads(data)["items"]]


def test_every_citation_gets_the_models_verdict_with_checked_evidence(
        server: FakeJudgeServer) -> None:
    answer = tower_answer(metadata={"tenant": "acme"})
    judged = asyncio.run(_refiner(server, prices=Prices(0.15, 0.60)).refine(answer))
    assert judged.judge == "openai:judge-model" and judged.tenant == "acme"
    assert [j.status for j in judged.judgements] == ["judged"] * 3
    first = judged.judgements[0]
    assert first.verdict == first.model_verdict and first.judge == "openai:judge-model"
    assert first.lexical_judge == "lexical"
    passage = answer.links[answer.citations[0].support.link].passage  # type: ignore[union-attr]
    for quote in first.evidence:
        assert passage[quote.start : quote.end] == quote.text
    assert judged.cost.requests == 1
    assert (judged.cost.input_tokens, judged.cost.output_tokens) == (420, 60)
    assert judged.cost.usd == pytest.approx((420 * 0.15 + 60 * 0.60) / 1e6)
    request = server.posts()[0]
    assert request["model"] == "judge-model" and request["temperature"] == 0
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["strict"] is True
    headers = next(r["headers"] for r in server.requests if r["method"] == "POST")
    assert headers.get("authorization") == "Bearer sk-test"


def test_the_default_scope_sends_only_doubtful_citations(server: FakeJudgeServer) -> None:
    answer = formatted("The Eiffel Tower was finished in 1889 in Rome by Napoleon [1].", [TOWER])
    assert answer.citations[0].support.verdict == "partial"  # type: ignore[union-attr]
    assert len(asyncio.run(_refiner(server, scope="doubtful").refine(answer)).judgements) == 1
    supported = formatted("The Eiffel Tower was completed in 1889 [1].", [TOWER])
    assert supported.citations[0].support.verdict == "supported"  # type: ignore[union-attr]
    assert asyncio.run(_refiner(server, scope="doubtful").refine(supported)).judgements == []


def test_a_disagreement_is_counted_and_marked(server: FakeJudgeServer) -> None:
    asyncio.run(_refiner(server).refine(tower_answer()))  # learn the ids the stage sends
    ids = _ids(server)
    server.script.append(_content(server, [
        {"id": k, "verdict": "unsupported", "rationale": "The source says otherwise.",
         "evidence": []} for k in ids]))
    judged = asyncio.run(_refiner(server).refine(tower_answer(answer_id="a2")))
    assert [j.verdict for j in judged.judgements] == ["unsupported"] * 3
    assert [j.disagrees for j in judged.judgements] == [True, False, True]
    assert judged.disagreements == 2


def test_a_server_without_json_schema_output_is_asked_again_and_parsed_strictly(
        server: FakeJudgeServer) -> None:
    server.reject_response_format = True
    refiner = _refiner(server)
    judged = asyncio.run(refiner.refine(tower_answer()))
    assert [j.status for j in judged.judgements] == ["judged"] * 3
    first, second = server.posts()[:2]
    assert "response_format" in first and "response_format" not in second
    asyncio.run(refiner.refine(formatted("The tower is in Paris on the Champ de Mars [1].",
                                         [PARIS])))
    assert "response_format" not in server.posts()[-1]


@pytest.mark.parametrize(("reply", "detail"), [
    (Reply(body=openai_completion("Sure! The first claim is supported.")), "not JSON"),
    (Reply(body=b'{"id": "chatcmpl-x", "choices": [{"message": {"content": "{\\"judg'),
     "no message"),
    (Reply(body=openai_completion('{"judgements": "all supported"}')), "judgements"),
    (Reply(body=openai_completion("x" * (1024 * 1024))), "longer than"),
    (Reply(body=b"{" + b" " * (1024 * 1024 + 10) + b"}"), "1 MiB"),
    (Reply(body=openai_completion(None, refusal="I can't help with that.")), "can't help"),
    (Reply(400, openai_error("context length exceeded")), "HTTP 400"),
])
def test_an_unusable_reply_keeps_every_lexical_verdict(
        server: FakeJudgeServer, reply: Reply, detail: str) -> None:
    answer = tower_answer()
    server.script.append(reply)
    judged = asyncio.run(_refiner(server).refine(answer))
    lexical = [c.support.verdict for c in answer.citations if c.support]  # type: ignore[union-attr]
    assert [j.verdict for j in judged.judgements] == lexical
    assert all(j.judge == "lexical" and j.evidence == [] for j in judged.judgements)
    assert all(j.status in ("rejected", "refused") for j in judged.judgements)
    assert all(detail in (j.detail or "") for j in judged.judgements), judged.judgements
    assert judged.disagreements == 0


def test_a_verdict_outside_the_enum_or_a_quote_not_in_the_source_rejects_that_item(
        server: FakeJudgeServer) -> None:
    refiner = _refiner(server)
    asyncio.run(refiner.refine(tower_answer()))
    ids = _ids(server)
    server.script.append(_content(server, [
        {"id": ids[0], "verdict": "definitely", "rationale": "Yes.", "evidence": []},
        {"id": ids[1], "verdict": "supported", "rationale": "The source says so.",
         "evidence": ["Napoleon painted the tower green in 1920."]},
        {"id": ids[2], "verdict": "supported", "rationale": "It stands in Paris.",
         "evidence": ["The Eiffel  Tower stands\nin Paris"]},
    ]))
    judged = asyncio.run(_refiner(server).refine(tower_answer(answer_id="a4")))
    bad_enum, invented, reflowed = judged.judgements
    assert bad_enum.status == "rejected" and "not one of" in (bad_enum.detail or "")
    assert invented.status == "rejected" and invented.verdict == "unsupported"
    assert invented.model_verdict == "supported" and "not in the source" in invented.detail
    assert invented.judge == "lexical" and not invented.disagrees
    assert reflowed.status == "judged"
    assert reflowed.evidence[0].text == "The Eiffel Tower stands in Paris"


def test_a_supported_verdict_must_quote_its_evidence(server: FakeJudgeServer) -> None:
    asyncio.run(_refiner(server).refine(tower_answer()))
    ids = _ids(server)
    server.script.append(_content(server, [
        {"id": k, "verdict": "supported", "rationale": "Trust me.", "evidence": []}
        for k in ids]))
    judged = asyncio.run(_refiner(server).refine(tower_answer(answer_id="a5")))
    assert {j.status for j in judged.judgements} == {"rejected"}
    assert "quoting no evidence" in (judged.judgements[0].detail or "")


def test_429_is_retried_after_what_retry_after_asks(server: FakeJudgeServer) -> None:
    sleeps: list[float] = []
    server.script += [Reply(429, openai_error("Rate limit reached", "requests"),
                            {"retry-after": "7"}),
                      Reply(503, openai_error("overloaded", "server_error"))]
    judged = asyncio.run(_refiner(server, sleeps=sleeps, attempts=4).refine(tower_answer()))
    assert [j.status for j in judged.judgements] == ["judged"] * 3
    assert len(server.posts()) == 3
    assert sleeps[0] == 7.0 and 0 < sleeps[1] <= 0.05


def test_a_retry_after_beyond_the_limit_is_not_waited_for(server: FakeJudgeServer) -> None:
    sleeps: list[float] = []
    server.script.append(Reply(429, openai_error("Rate limit"), {"retry-after": "3600"}))
    judged = asyncio.run(_refiner(server, sleeps=sleeps).refine(tower_answer()))
    assert sleeps == [] and len(server.posts()) == 1
    assert {j.status for j in judged.judgements} == {"unavailable"}
    assert "Retry-After" in (judged.judgements[0].detail or "")


def test_timeouts_are_retried_then_the_lexical_verdict_stays(server: FakeJudgeServer) -> None:
    server.script += [Reply(body=openai_completion("{}"), delay_s=2.0)] * 2
    judged = asyncio.run(_refiner(server, timeout=0.3, attempts=2).refine(tower_answer()))
    assert {j.status for j in judged.judgements} == {"unavailable"}
    assert "Timeout" in (judged.judgements[0].detail or "")
    assert [j.verdict for j in judged.judgements] == ["supported", "unsupported", "supported"]


def test_the_breaker_opens_falls_back_says_so_and_closes_after_the_outage(
        server: FakeJudgeServer) -> None:
    now = [0.0]
    breaker = CircuitBreaker(threshold=2, cooldown_s=60, clock=lambda: now[0])
    refiner = _refiner(server, attempts=1, breaker=breaker)
    server.script += [Reply(500, openai_error("boom", "server_error"))] * 2
    for n in range(2):
        judged = asyncio.run(refiner.refine(tower_answer(answer_id=f"o{n}")))
        assert {j.status for j in judged.judgements} == {"unavailable"}
    calls = len(server.posts())
    down = asyncio.run(refiner.refine(tower_answer(answer_id="o3")))
    assert down.breaker == "open" and len(server.posts()) == calls
    assert {j.detail for j in down.judgements} == {"the judge's circuit breaker is open"}
    assert [j.verdict for j in down.judgements] == ["supported", "unsupported", "supported"]
    now[0] = 61.0  # cooled down: one trial call, which succeeds
    back = asyncio.run(refiner.refine(tower_answer(answer_id="o4")))
    assert [j.status for j in back.judgements] == ["judged"] * 3
    assert back.breaker == "closed"


def test_a_tenant_over_budget_keeps_lexical_verdicts_others_do_not(
        server: FakeJudgeServer) -> None:
    refiner = _refiner(server, batch_size=8, budgets=Budgets(BudgetLimits(requests=1)))
    assert {j.status for j in asyncio.run(refiner.refine(
        tower_answer(metadata={"tenant": "t1"}))).judgements} == {"judged"}
    # Other claims (the same ones would come from the cache, which costs nothing).
    other_claims = formatted("The tower is on the Champ de Mars [1].", [PARIS],
                             metadata={"tenant": "t1"})
    over = asyncio.run(refiner.refine(other_claims))
    assert {j.status for j in over.judgements} == {"over_budget"}
    assert "t1" in (over.judgements[0].detail or "") and over.cost.requests == 0
    other = asyncio.run(refiner.refine(formatted("The tower is on the Champ de Mars [1].", [PARIS],
                                     metadata={"tenant": "t2"})))
    assert {j.status for j in other.judgements} == {"judged"}


def test_a_repeated_claim_is_answered_from_the_cache(server: FakeJudgeServer) -> None:
    refiner = _refiner(server)
    asyncio.run(refiner.refine(tower_answer()))
    calls = len(server.posts())
    again = asyncio.run(refiner.refine(tower_answer(answer_id="c2")))
    assert len(server.posts()) == calls and again.cost.requests == 0
    assert all(j.cached and j.status == "judged" for j in again.judgements)


def test_batches_bound_the_items_per_request(server: FakeJudgeServer) -> None:
    judged = asyncio.run(_refiner(server, batch_size=2, concurrency=2).refine(tower_answer()))
    assert judged.cost.requests == 2 and len(server.posts()) == 2
    assert sorted(len(json.loads(p["messages"][1]["content"].split("\n")[2])["items"])
                  for p in server.posts()) == [1, 2]


def test_a_4_mb_source_is_cut_to_the_context_window(server: FakeJudgeServer) -> None:
    answer = tower_answer()
    filler = "Unrelated words about river barges and canal locks. " * 80_000
    link = answer.citations[0].support.link  # type: ignore[union-attr]
    links = list(answer.links)
    links[link] = links[link].model_copy(
        update={"passage": filler + links[link].passage + filler})
    big = answer.model_copy(update={"links": links})
    assert len(links[link].passage) > 4_000_000
    judged = asyncio.run(_refiner(server, context_chars=2000).refine(big))
    request = server.posts()[0]
    assert len(json.dumps(request)) < 20_000
    first = judged.judgements[0]
    assert first.status == "judged"
    assert links[link].passage[first.evidence[0].start : first.evidence[0].end] == \
        first.evidence[0].text


def test_an_unknown_model_or_refused_key_is_one_error_at_start_up(
        server: FakeJudgeServer) -> None:
    env = {"CITEFLOW_JUDGING": "openai:no-such-model",
           "CITEFLOW_JUDGING_BASE_URL": server.base_url}
    with pytest.raises(JudgeConfigError, match="'no-such-model' does not exist.*judge-model"):
        refiner_from_env(env)
    server.script.clear()
    with pytest.raises(JudgeConfigError, match="CITEFLOW_JUDGING='gpt'"):
        refiner_from_env({"CITEFLOW_JUDGING": "gpt"})
    with pytest.raises(JudgeConfigError, match="CITEFLOW_JUDGING_SCOPE"):
        refiner_from_env({**env, "CITEFLOW_JUDGING": "openai:judge-model",
                          "CITEFLOW_JUDGING_SCOPE": "some"})
    with pytest.raises(JudgeConfigError, match="budget"):
        refiner_from_env({**env, "CITEFLOW_JUDGING": "openai:judge-model",
                          "CITEFLOW_JUDGING_BUDGET": "dollars=5"})
    ready = refiner_from_env({**env, "CITEFLOW_JUDGING": "openai:judge-model"})
    assert ready.judge.name == "openai:judge-model" and ready.scope == "doubtful"


def test_a_refused_key_is_a_start_up_error() -> None:
    class Refusing(FakeJudgeServer):
        def default(self, method: str, path: str, body: Any) -> Reply:
            return Reply(401, openai_error("Incorrect API key provided", code="invalid_api_key"))

    with Refusing("openai") as fake, pytest.raises(JudgeConfigError, match="refused"):
        refiner_from_env({"CITEFLOW_JUDGING": "openai:judge-model",
                          "CITEFLOW_JUDGING_BASE_URL": fake.base_url})


def test_the_documented_defaults_are_the_code_s() -> None:
    from services.judging.settings import DEFAULTS
    from tests.docs.test_configuration import documented

    table = documented()
    for variable, default in DEFAULTS.items():
        assert table[variable] == (f"`{default}`" if default else
                                   ("unset" if variable == "CITEFLOW_JUDGING" else "empty"))
