"""POST /v1/providers/{provider}/answers and :batch: a provider's own response is
admitted by the ingest stage's code (`admit_provider`, what `citeflow process --from` runs)
and produced as the normalised answer.submitted, through the plain submit's path: tenancy,
duplicates and 409, idempotency keys, ?wait=, problems with the JSON path (unit tests over
in-memory fakes; the sample lines are the provider adapters' test fixtures)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from schemas.answers import PROVIDERS, AnswerAccepted, AnswerRejected
from services.gateway.auth import Principal
from services.gateway.problems import ProblemError
from services.gateway.submit import admit, provider_ingest
from services.ingest.answers import admit_provider
from services.ingest.budget import answer_weight
from services.providers import normalize
from tests.services.gateway.conftest import Gw, body
from tests.services.providers import fixtures as fx

PROBLEM = "application/problem+json"

# A real sample line of every provider (and of every OpenAI API shape), from the adapters'
# fixtures; their metadata names tenant "t1".
SAMPLES: list[tuple[str, Callable[[], dict[str, Any]]]] = [
    ("anthropic", fx.anthropic),
    ("openai", fx.openai_responses),
    ("openai", fx.openai_chat),
    ("openai", fx.openai_assistants),
    ("gemini", fx.gemini),
    ("cohere", fx.cohere),
    ("perplexity", fx.perplexity),
    ("bedrock", fx.bedrock),
    ("langchain", fx.langchain),
]


def url(provider: str, batch: bool = False) -> str:
    return f"/v1/providers/{provider}/answers" + (":batch" if batch else "")


async def t1(gw: Gw) -> dict[str, str]:
    """A submit + read key of tenant t1, the tenant the fixture lines name."""
    return gw.auth(await gw.key_for("t1", "submit", "read"))


def test_every_provider_has_a_sample() -> None:
    assert {provider for provider, _ in SAMPLES} == set(PROVIDERS)


@pytest.mark.parametrize(("provider", "make"), SAMPLES,
                         ids=[make.__name__ for _, make in SAMPLES])
async def test_each_provider_line_is_produced_as_its_normalised_answer(
    gw: Gw, provider: str, make: Callable[[], dict[str, Any]]
) -> None:
    line = make()
    raw = body(line)
    r = await gw.client.post(url(provider), content=raw, headers=await t1(gw))
    assert r.status_code == 202, r.text
    answer_id = line["answer_id"]
    assert r.headers["location"] == f"/v1/answers/{answer_id}"
    assert r.json()["answer_id"] == answer_id and r.json()["status"] == "submitted"
    [(sent, tenant, _)] = gw.producer.sent
    assert tenant == "t1"
    # The very answer `citeflow process --from PROVIDER` makes of the line, and normalize's.
    admitted = admit_provider(raw, provider, event_id="cli", position="line 1")
    assert isinstance(admitted, AnswerAccepted)
    assert sent == admitted.answer == normalize(provider, line)
    assert sent.sources  # the provider's sources came through
    assert gw.store.answers[answer_id].status == "submitted"
    assert gw.store.answers[answer_id].tenant == "t1"


async def test_the_key_tenant_is_stamped_and_another_tenant_refused(gw: Gw) -> None:
    line = {**fx.cohere(), "metadata": {"model": "command-a"}}
    r = await gw.client.post(url("cohere"), content=body(line), headers=gw.auth())
    assert r.status_code == 202
    [(sent, tenant, _)] = gw.producer.sent
    assert tenant == "acme" and sent.metadata == {"model": "command-a", "tenant": "acme"}
    assert gw.store.answers["cohere-1"].model == "command-a"
    other = {**fx.gemini(), "metadata": {"tenant": "t1"}}  # the key is acme's
    r = await gw.client.post(url("gemini"), content=body(other), headers=gw.auth())
    assert r.status_code == 403 and r.json()["path"] == "$.metadata.tenant"
    assert len(gw.producer.sent) == 1


async def test_the_same_answer_as_a_plain_submit_is_the_same_submission(gw: Gw) -> None:
    """The produced answer is an answer.submitted like any other: submitting the normalised
    answer itself to /v1/answers is the same answer (same event id), not produced again."""
    headers = await t1(gw)
    first = await gw.client.post(url("gemini"), content=body(fx.gemini()), headers=headers)
    assert first.status_code == 202
    [(sent, _, _)] = gw.producer.sent
    plain = await gw.client.post("/v1/answers", headers=headers,
                                 content=sent.model_dump_json(exclude_none=True).encode())
    assert (plain.status_code, plain.content) == (202, first.content)
    assert len(gw.producer.sent) == 1


async def test_a_malformed_response_is_a_422_problem_with_its_path(gw: Gw) -> None:
    headers = await t1(gw)
    line = fx.line({"output": {"text": 3}}, answer_id="b-9")
    r = await gw.client.post(url("bedrock"), content=body(line), headers=headers)
    assert r.status_code == 422
    assert r.headers["content-type"] == PROBLEM
    problem = r.json()
    assert (problem["code"], problem["path"], problem["answer_id"]) == (
        "invalid_provider_response", "$.response.output.text", "b-9")
    # The rejection ingest gives the same line.
    rejected = admit_provider(body(line), "bedrock", event_id="x")
    assert isinstance(rejected, AnswerRejected)
    assert (problem["code"], problem["detail"], problem["path"]) == (
        rejected.code, rejected.message, rejected.path)
    broken = {"answer_id": "a-2", "response": {"content": "not a list of blocks"}}
    r = await gw.client.post(url("anthropic"), content=body(broken), headers=headers)
    assert r.status_code == 422 and r.json()["code"] == "invalid_provider_response"
    assert r.json()["path"].startswith("$.response.content")
    assert not gw.producer.sent


async def test_an_unreadable_line_is_a_400_and_a_line_without_a_response_a_422(
        gw: Gw) -> None:
    headers = await t1(gw)
    for raw, code in ((b'{"answer_id": "x", ', "invalid_json"),
                      (b'{"answer_id": "\xff\xfe"}', "invalid_utf8"),
                      (b"[1, 2]", "not_an_object")):
        r = await gw.client.post(url("openai"), content=raw, headers=headers)
        assert r.status_code == 400, raw
        assert r.headers["content-type"] == PROBLEM and r.json()["code"] == code
    r = await gw.client.post(url("openai"), content=b'{"answer_id": "x"}', headers=headers)
    assert r.status_code == 422
    assert (r.json()["code"], r.json()["path"]) == ("missing_field", "$.response")
    r = await gw.client.post(url("openai"), headers=headers,
                             content=body({**fx.openai_chat(), "answer_id": "a b"}))
    assert r.status_code == 422
    assert (r.json()["code"], r.json()["path"]) == ("invalid_answer_id", "$.answer_id")
    assert not gw.producer.sent


async def test_an_unknown_provider_is_a_404_listing_the_known_ones(gw: Gw) -> None:
    for batch in (False, True):
        r = await gw.client.post(url("acme", batch), content=body(fx.gemini()),
                                 headers=await t1(gw))
        assert r.status_code == 404
        assert r.headers["content-type"] == PROBLEM
        problem = r.json()
        assert problem["code"] == "unknown_provider"
        assert problem["providers"] == list(PROVIDERS)
        assert all(name in problem["detail"] for name in PROVIDERS)
    assert not gw.producer.sent


async def test_the_submit_scope_is_needed(gw: Gw) -> None:
    r = await gw.client.post(url("gemini"), content=body(fx.gemini()))
    assert r.status_code == 401
    reader = await gw.key_for("t1", "read")
    r = await gw.client.post(url("gemini"), content=body(fx.gemini()), headers=gw.auth(reader))
    assert r.status_code == 403
    assert not gw.producer.sent


async def test_the_same_line_again_is_the_same_response_and_produced_once(gw: Gw) -> None:
    headers = await t1(gw)
    first = await gw.client.post(url("perplexity"), content=body(fx.perplexity()),
                                 headers=headers)
    again = orjson.dumps(fx.perplexity(), option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)
    second = await gw.client.post(url("perplexity"), content=again, headers=headers)
    assert first.status_code == 202
    assert (second.status_code, second.content) == (first.status_code, first.content)
    assert len(gw.producer.sent) == 1


async def test_another_body_under_the_same_answer_id_is_409(gw: Gw) -> None:
    headers = await t1(gw)
    await gw.client.post(url("langchain"), content=body(fx.langchain()), headers=headers)
    changed = fx.langchain()
    changed["response"]["content_blocks"][1]["text"] = fx.TOKYO
    r = await gw.client.post(url("langchain"), content=body(changed), headers=headers)
    assert r.status_code == 409
    assert (r.json()["code"], r.json()["answer_id"]) == ("answer_id_conflict", "langchain-1")
    # Under the same answer_id a plain answer of another body is the same conflict.
    plain = {"answer_id": "langchain-1", "text": "t [1].", "sources": [{"index": 1}]}
    r = await gw.client.post("/v1/answers", content=body(plain), headers=headers)
    assert r.status_code == 409
    assert len(gw.producer.sent) == 1


async def test_idempotency_key_replays_and_refuses_reuse(gw: Gw) -> None:
    headers = {**await t1(gw), "Idempotency-Key": "k-1"}
    line = body(fx.anthropic())  # (each call writes its PDF anew: other bytes)
    first = await gw.client.post(url("anthropic"), content=line, headers=headers)
    replay = await gw.client.post(url("anthropic"), content=line, headers=headers)
    assert first.status_code == replay.status_code == 202
    assert replay.content == first.content
    assert replay.headers["location"] == "/v1/answers/anthropic-1"
    reused = await gw.client.post(url("anthropic"), content=body(fx.anthropic() | {
        "answer_id": "other"}), headers=headers)
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    # The key covers the route: the same bytes to another provider are another request.
    other = await gw.client.post(url("bedrock"), content=line, headers=headers)
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"
    assert len(gw.producer.sent) == 1


async def test_wait_returns_the_result_and_is_bounded(gw: Gw) -> None:
    headers = await t1(gw)
    formatted = b'{"answer_id":"gemini-1","text":"t"}'

    async def deliver_soon() -> None:
        while ("gemini-1", "t1") not in gw.hub.waiting:
            await asyncio.sleep(0.01)
        gw.hub.deliver(gw.store.finish("gemini-1", "formatted", formatted))

    task = asyncio.create_task(deliver_soon())
    r = await gw.client.post(url("gemini") + "?wait=5", content=body(fx.gemini()),
                             headers=headers)
    await task
    assert (r.status_code, r.content) == (200, formatted)
    assert r.headers["location"] == "/v1/answers/gemini-1"
    assert r.headers["citeflow-status"] == "formatted"
    r = await gw.client.post(url("cohere") + "?wait=0.1", content=body(fx.cohere()),
                             headers=headers)
    assert r.status_code == 202
    r = await gw.client.post(url("cohere") + "?wait=31", content=body(fx.cohere()),
                             headers=headers)
    assert r.status_code == 400 and r.json()["path"] == "?wait"


async def test_broker_down_is_503_and_the_retry_is_processed(gw: Gw) -> None:
    headers = await t1(gw)
    gw.producer.down = True
    r = await gw.client.post(url("openai"), content=body(fx.openai_chat()), headers=headers)
    assert r.status_code == 503 and "retry-after" in r.headers
    assert "openai-chat-1" not in gw.store.answers
    gw.producer.down = False
    r = await gw.client.post(url("openai"), content=body(fx.openai_chat()), headers=headers)
    assert r.status_code == 202 and len(gw.producer.sent) == 1


async def test_batch_of_good_and_bad_lines_gives_one_result_per_line(gw: Gw) -> None:
    good = body(fx.anthropic())
    lines = b"\n".join([
        good,
        b"{not json",
        b"",
        body(fx.line({"content": "not a list of blocks"}, answer_id="bad-1")),
        body({**fx.anthropic(), "answer_id": "anthropic-2"}) + b"\r",
        body({**fx.anthropic(), "metadata": {"tenant": "other"}, "answer_id": "anthropic-3"}),
        body({"answer_id": "no-response"}),
    ])
    r = await gw.client.post(url("anthropic", batch=True), content=lines, headers=await t1(gw))
    assert r.status_code == 200
    doc = r.json()
    assert (doc["accepted"], doc["refused"]) == (2, 4)
    by_line = {item["line"]: item for item in doc["results"]}
    assert sorted(by_line) == [1, 2, 4, 5, 6, 7]
    assert by_line[1]["status"] == 202
    assert by_line[1]["location"] == "/v1/answers/anthropic-1"
    assert by_line[2]["status"] == 400 and by_line[2]["problem"]["code"] == "invalid_json"
    bad = by_line[4]
    assert bad["status"] == 422
    assert (bad["problem"]["code"], bad["problem"]["path"], bad["problem"]["answer_id"]) == (
        "invalid_provider_response", "$.response.content", "bad-1")
    assert by_line[5]["status"] == 202 and by_line[5]["answer_id"] == "anthropic-2"
    assert by_line[6]["status"] == 403
    assert by_line[7]["status"] == 422
    assert by_line[7]["problem"]["path"] == "$.response"
    produced = {a.answer_id: a for a, _, _ in gw.producer.sent}
    assert sorted(produced) == ["anthropic-1", "anthropic-2"]
    expected = admit_provider(good, "anthropic", event_id="cli")
    assert isinstance(expected, AnswerAccepted)
    assert produced["anthropic-1"] == expected.answer


async def test_a_batch_repeat_is_the_same_and_a_changed_line_a_409(gw: Gw) -> None:
    headers = await t1(gw)
    # A Cohere response is not a Bedrock one: refused on the Bedrock route.
    lines = b"\n".join([body(fx.bedrock()), body(fx.cohere() | {"answer_id": "c-2"})])
    first = await gw.client.post(url("bedrock", batch=True), content=lines, headers=headers)
    assert [item["status"] for item in first.json()["results"]] == [202, 422]
    again = await gw.client.post(url("bedrock", batch=True), content=lines, headers=headers)
    assert again.content == first.content
    changed = fx.bedrock()
    changed["query"] = "another question?"
    r = await gw.client.post(url("bedrock", batch=True), content=body(changed),
                             headers=headers)
    [result] = r.json()["results"]
    assert result["status"] == 409
    assert result["problem"]["code"] == "answer_id_conflict"
    assert [a.answer_id for a, _, _ in gw.producer.sent] == ["bedrock-1"]


def test_a_normalised_answer_over_the_limit_is_413_not_left_to_ingest() -> None:
    """The normalised answer, not the line, goes on the topic, and may be the larger."""
    raw = body(fx.langchain())
    accepted = admit_provider(raw, "langchain", event_id="x")
    assert isinstance(accepted, AnswerAccepted)
    normalised = len(accepted.answer.model_dump_json().encode())
    assert normalised > len(raw)
    principal = Principal(key_id="k", tenant="t1", scopes=frozenset({"submit"}),
                          rate_per_s=None)
    limit = (len(raw) + normalised) // 2
    with pytest.raises(ProblemError) as caught:
        admit(raw, principal, limit, provider_ingest("langchain"))
    assert (caught.value.status, caught.value.code) == (413, "too_large")
    assert caught.value.path == "$<normalised langchain answer>"
    assert caught.value.extra == {"answer_id": accepted.answer.answer_id, "limit_bytes": limit}
    weight = answer_weight(accepted.answer, 0).total  # its weight, measured
    assert admit(raw, principal, weight, provider_ingest("langchain")) == accepted.answer
    with pytest.raises(ProblemError):
        admit(raw, principal, weight - 1, provider_ingest("langchain"))
