"""The Python client against a real gateway (`citeflow serve` as its own process), the
embedded broker, the five stages and the store sink, on SQLite and PostgreSQL:

- submit (with and without wait), wait, get, list (cursor pages), stats and stream, through
  a gateway kill -9 and restart: the stream resumes with Last-Event-ID and sees every answer
  once, and a submit made while the gateway is down is retried until it is back;
- 429: a key over its rate is retried after the gateway's Retry-After, every answer lands;
- a connection lost after the gateway accepted a submit: retried under the same
  Idempotency-Key, one answer on the topic, the caller sees a plain 202.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from citeflow.client import (
    Accepted,
    AnswerState,
    AsyncClient,
    Client,
    RetryInfo,
    RetryPolicy,
)
from citeflow.schemas.answer_formatted import AnswerFormatted
from services.stages import STAGE_NAMES
from services.store.sql import SqlStore
from tests.citeflow.faults import DroppingProxy
from tests.integration.conftest import WAIT_S, Harness, small_answers
from tests.integration.test_gateway_pipeline import Gateway, pipeline  # noqa: F401

pytestmark = pytest.mark.integration
ALL = frozenset({"submit", "read", "stream"})


async def _key(url: str, rate_per_s: float = 1e6) -> str:
    store = SqlStore(url)
    try:
        await store.migrate()
        return (await store.create_key("acme", ALL, rate_per_s=rate_per_s))[1]
    finally:
        await store.close()


def _answers(count: int, prefix: str) -> list[dict[str, Any]]:
    """Small valid answers of no tenant of their own (the key's is stamped)."""
    return [{**a, "metadata": {"model": "m-client"}} for a in small_answers(count, prefix)]


# Retries no gateway restart can exhaust, however slow the machine: how long a test waits
# is its own `wait_for`'s business, never the client's retry count.
OUTLASTING = 10**6
# The gateway stays down until every submit made meanwhile has been retried this often:
# a restart slower than any fixed budget a test might have guessed.
DOWN_FOR_RETRIES = 50


def _policy(seen: list[RetryInfo]) -> RetryPolicy:
    return RetryPolicy(attempts=OUTLASTING, base=0.05, cap=0.5, on_retry=seen.append)


def _follow(client: Client, seen: list[str], stop: threading.Event) -> Any:
    stream = client.stream()

    def run() -> None:
        for event in stream:
            assert isinstance(event.result, AnswerFormatted)
            assert event.result.answer_id == event.answer_id
            seen.append(event.answer_id)
            if stop.is_set():
                stream.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return stream, thread


def _submit_in_threads(client: Client, answers: list[dict[str, Any]]) -> dict[str, Any]:
    """Submit each answer in its own thread; the dict fills with each one's outcome (its
    result or the exception it raised), and the client closes after the last."""
    outcomes: dict[str, Any] = {}
    left = [len(answers)]
    lock = threading.Lock()

    def run(answer: dict[str, Any]) -> None:
        try:
            outcome: Any = client.submit(answer)
        except Exception as exc:  # noqa: BLE001 - the test asserts on it
            outcome = exc
        with lock:
            left[0] -= 1
            if not left[0]:
                client.close()
            outcomes[answer["answer_id"]] = outcome

    for answer in answers:
        threading.Thread(target=run, args=(answer,), daemon=True).start()
    return outcomes


def test_submit_wait_list_stream_through_a_gateway_restart(
        harness: Harness, pipeline: str) -> None:  # noqa: F811
    gateway = Gateway(harness, pipeline)
    gateway.start()
    key = asyncio.run(_key(pipeline))
    retries: list[RetryInfo] = []
    with Client(gateway.url, key, retry=_policy(retries)) as client:
        streamed: list[str] = []
        stop = threading.Event()
        stream, follower = _follow(client, streamed, stop)
        harness.wait_for(lambda: stream.connected, "the stream connected")
        first = _answers(3, "before")
        # The first waits for its result in the same call (a cold pipeline may take longer
        # than `wait`: then it is a 202 and `wait()` finishes the job).
        done = client.submit(first[0], wait=30)
        if isinstance(done, Accepted):
            done = client.wait(first[0]["answer_id"], WAIT_S)
        assert isinstance(done, AnswerFormatted), done.model_dump()
        assert done.renderings.html
        for answer in first[1:]:
            assert isinstance(client.submit(answer), Accepted)
        for answer in first:
            assert isinstance(client.wait(answer["answer_id"], WAIT_S), AnswerFormatted)
        harness.wait_for(lambda: len(streamed) >= 3, "the first answers streamed")

        gateway.kill()
        second = _answers(3, "during")
        outage: list[RetryInfo] = []
        outcomes = _submit_in_threads(Client(gateway.url, key, retry=_policy(outage)), second)
        harness.wait_for(lambda: sum(r.attempt == DOWN_FOR_RETRIES for r in outage) == 3,
                         f"every submit retried {DOWN_FOR_RETRIES} times")
        gateway.start()
        harness.wait_for(lambda: len(outcomes) == 3, "the submits made while it was down")
        assert all(isinstance(o, Accepted) for o in outcomes.values()), outcomes
        ids = [a["answer_id"] for a in first + second]
        for answer_id in ids:
            assert isinstance(client.wait(answer_id, WAIT_S), AnswerFormatted)
        harness.wait_for(lambda: set(ids) <= set(streamed), "every answer streamed")
        stop.set()
        client.submit(_answers(1, "last")[0])  # wakes the follower to stop
        follower.join(WAIT_S)
        assert stream.reconnects >= 1
        assert sorted(streamed[:len(ids)]) == sorted(ids)
        assert len(streamed) == len(set(streamed)), "an answer streamed twice"

        listed = [item.answer_id for item in client.list(limit=2, status="formatted")]
        assert set(ids) <= set(listed) and len(listed) == len(set(listed))
        assert all(isinstance(i, AnswerState) for i in client.list(limit=3))
        stats = client.stats(group_by="model", window="1h")
        assert sum(g["answers"] for g in stats.groups) >= len(ids)


def test_429_is_retried_after_retry_after(harness: Harness, store_url: str) -> None:
    harness.create_topics([*STAGE_NAMES, "store"])
    key = asyncio.run(_key(store_url, rate_per_s=2))
    gateway = Gateway(harness, store_url)
    gateway.start()
    retries: list[RetryInfo] = []
    answers = _answers(8, "rate")

    async def go() -> list[Any]:
        # All at once: one after another, a slow machine submits under the key's rate.
        async with AsyncClient(gateway.url, key, retry=_policy(retries)) as client:
            return list(await asyncio.gather(*(client.submit(a) for a in answers)))

    results = asyncio.run(go())
    assert all(isinstance(r, Accepted) for r in results)
    limited = [r for r in retries if r.status == 429]
    assert limited, "no submit was over the key's rate"
    assert all(r.retry_after and r.delay >= r.retry_after for r in limited)
    submitted = {r.key.decode() for r in harness.read("answers.submitted")}
    assert {a["answer_id"] for a in answers} <= submitted


def test_a_lost_response_is_retried_without_a_duplicate(harness: Harness,
                                                        store_url: str) -> None:
    harness.create_topics([*STAGE_NAMES, "store"])
    key = asyncio.run(_key(store_url))
    gateway = Gateway(harness, store_url)
    gateway.start()
    retries: list[RetryInfo] = []
    answer = _answers(1, "lost")[0]
    with DroppingProxy(gateway.port, drops=1).running() as proxy, \
            Client(proxy.url, key, retry=_policy(retries)) as client:
        accepted = client.submit(answer)
    assert proxy.dropped == 1 and [r.error is not None for r in retries] == [True]
    assert isinstance(accepted, Accepted) and accepted.answer_id == answer["answer_id"]
    records = [r for r in harness.read("answers.submitted")
               if r.key == answer["answer_id"].encode()]
    assert len(records) == 1


def test_batch_provider_and_document_routes(harness: Harness, pipeline: str) -> None:  # noqa: F811
    from tests.services.ingest.documents.builders import Chapter, EpubSpec, build_epub
    from tests.services.providers import fixtures

    gateway = Gateway(harness, pipeline)
    gateway.start()
    key = asyncio.run(_key(pipeline))
    with Client(gateway.url, key) as client:
        good = _answers(2, "batch")
        batch = client.submit_many([good[0], {"answer_id": "bad-1", "text": "x"}, good[1]])
        assert (batch.accepted, batch.refused) == (2, 1)
        assert [line.status for line in batch.results] == [202, 422, 202]
        assert batch.results[1].problem and batch.results[1].problem["code"]

        line = fixtures.anthropic()
        accepted = client.submit_provider("anthropic", line["response"],
                                          request=line["request"], answer_id="prov-1",
                                          metadata={"model": "claude"})
        assert isinstance(accepted, Accepted) and accepted.answer_id == "prov-1"
        result = client.wait("prov-1", WAIT_S)
        assert isinstance(result, AnswerFormatted) and result.citations
        for answer in good:
            assert isinstance(client.wait(answer["answer_id"], WAIT_S), AnswerFormatted)

        book = build_epub(EpubSpec([Chapter("c1.xhtml", "<html><body><p>Call me Ishmael."
                                            "</p></body></html>")], opf_dir="OPS"))
        document = client.upload_document(book, doc_id="tiny-book", title="Tiny",
                                          filename="tiny.epub")
        assert document.doc_id == "tiny-book" and document.status == "submitted"
        ready = client.wait_document("tiny-book", WAIT_S)
        assert (ready.status, ready.format) == ("ingested", "epub") and ready.sections
        again = client.upload_document(book, doc_id="tiny-book", filename="tiny.epub")
        assert again.doc_id == "tiny-book"


def test_the_async_client_submits_waits_lists_and_streams(harness: Harness,
                                                          pipeline: str) -> None:  # noqa: F811
    gateway = Gateway(harness, pipeline)
    gateway.start()
    key = asyncio.run(_key(pipeline))
    answers = _answers(4, "async")

    async def go() -> tuple[list[str], list[str]]:
        async with AsyncClient(gateway.url, key) as client:
            stream = client.stream(view="summary")
            streamed: list[str] = []

            async def follow() -> None:
                async for event in stream:
                    streamed.append(event.answer_id)
                    if set(a["answer_id"] for a in answers) <= set(streamed):
                        stream.close()
                        return

            follower = asyncio.create_task(follow())
            while not stream.connected:  # outcomes after the subscription are delivered
                await asyncio.sleep(0.01)
            results = await asyncio.gather(*(client.submit(a) for a in answers))
            assert all(isinstance(r, Accepted) for r in results)
            for answer in answers:
                assert isinstance(await client.wait(answer["answer_id"], WAIT_S),
                                  AnswerFormatted)
            await asyncio.wait_for(follower, WAIT_S)
            listed = [item.answer_id async for item in client.list(limit=3)]
            return streamed, listed

    streamed, listed = asyncio.run(go())
    ids = {a["answer_id"] for a in answers}
    assert ids <= set(streamed) and len(streamed) == len(set(streamed))
    assert ids <= set(listed) and len(listed) == len(set(listed))
