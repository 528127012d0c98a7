"""The gateway on real parts: `citeflow serve` as its own process, the embedded broker, the
five pipeline stages and the store sink, with the results store on SQLite and PostgreSQL.

- a submit with ?wait= returns the formatted result in the same call;
- kill -9 the gateway during a submit load: every answer that got a 202 reaches the store
  with exactly one visible (formatted) result;
- two gateway processes on one store taking the same answer ids at once: every same-body
  submit is a 202 and the answer is stored and formatted once; of two bodies under one id,
  one is a 202 and the other a 409, and the result is the 202's;
- two tenants submitting the same answer_ids (one by one with ?wait=, and in batches, at
  once): every submit is a 202, each tenant's answer is formatted and stored, and every
  read (by id, ?wait=, the list) gives each tenant only its own;
- the broker down: 503 with Retry-After and nothing recorded.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from services.broker import free_port
from services.store.sql import SqlStore
from tests.integration.conftest import (
    FAST_ENV,
    REPO_ROOT,
    WAIT_S,
    Harness,
    small_answers,
)

pytestmark = pytest.mark.integration

SCOPES = frozenset({"submit", "read"})


class Gateway:
    """One `citeflow serve` process of a test (killed by the harness afterwards)."""

    def __init__(self, harness: Harness, store_url: str, bootstrap: str | None = None,
                 name: str = "gateway") -> None:
        self.harness = harness
        self.store_url = store_url
        self.bootstrap = bootstrap or harness.bootstrap
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, ready: str = "/readyz") -> None:
        log = open(self.harness.logs / f"{self.name}.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--port", str(self.port),
             "--bootstrap", self.bootstrap, "--prefix", self.harness.prefix],
            env={**os.environ, **FAST_ENV, "PYTHONPATH": str(REPO_ROOT),
                 "CITEFLOW_STORE_URL": self.store_url},
            stdout=subprocess.DEVNULL, stderr=log, cwd=REPO_ROOT,
        )
        log.close()
        self.harness.processes.append(self.process)
        # The harness's deadline, not a guess at start-up time: a busy machine took over 60 s
        # (a gateway that exits fails the wait at once).
        self.harness.wait_for(lambda: self._status(ready) == 200, f"gateway {ready}")

    def _status(self, path: str) -> int | None:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"gateway exited with {self.process.returncode}")
        try:
            return httpx.get(self.url + path, timeout=5).status_code
        except httpx.HTTPError:
            return None

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


def _store(url: str) -> SqlStore:
    return SqlStore(url)


async def _key(url: str, tenant: str = "acme") -> str:
    store = _store(url)
    try:
        await store.migrate()
        _, secret = await store.create_key(tenant, SCOPES, rate_per_s=1e6)
        return secret
    finally:
        await store.close()


async def _records(url: str, ids: list[str], tenant: str | None = None) -> dict[str, Any]:
    store = _store(url)
    try:
        return await store.get_many(ids, tenant)
    finally:
        await store.close()


def _wait_formatted(harness: Harness, url: str, ids: list[str],
                    tenant: str | None = None) -> dict[str, Any]:
    """The store's records of `ids` (the tenant's) once every one of them is formatted."""

    def all_formatted() -> bool:
        records = asyncio.run(_records(url, ids, tenant))
        return len(records) == len(ids) and all(
            r.status == "formatted" for r in records.values())

    harness.wait_for(all_formatted, "every answer formatted in the store")
    return asyncio.run(_records(url, ids, tenant))


@pytest.fixture
def pipeline(harness: Harness, pipeline_specs: list[str], store_url: str) -> Iterator[str]:
    """Topics, the five stages and the store sink on `store_url`; yields the URL."""
    harness.create_topics([*pipeline_specs, "store"])
    asyncio.run(_key(store_url, "nobody"))  # migrated before the sink and the gateway
    for spec in pipeline_specs:
        harness.start(spec)
    harness.start("store", CITEFLOW_STORE_URL=store_url)
    yield store_url


def test_submit_with_wait_returns_the_formatted_result(harness: Harness, pipeline: str) -> None:
    gateway = Gateway(harness, pipeline)
    gateway.start()
    key = asyncio.run(_key(pipeline))
    # Warm the stages up (group joins) so the measured call is a steady-state one.
    warm = small_answers(1, prefix="warm")
    harness.submit(warm)
    harness.wait_for_keys("answers.formatted", {warm[0]["answer_id"]})
    answer = small_answers(1, prefix="wait")[0]
    answer["metadata"] = {"model": "m-wait"}
    r = httpx.post(f"{gateway.url}/v1/answers?wait=30", content=orjson.dumps(answer),
                   headers={"Authorization": f"Bearer {key}"}, timeout=60)
    assert r.status_code == 200, r.text
    formatted = r.json()
    assert formatted["answer_id"] == answer["answer_id"]
    assert formatted["metadata"] == {"model": "m-wait", "tenant": "acme"}
    assert formatted["renderings"]["html"]
    assert r.headers["citeflow-status"] == "formatted"
    # The same result by id at once (the hub saw it; the store sink may write it a moment
    # later), and then from the store, with an ETag that a repeat honours.
    def by_id() -> httpx.Response:
        return httpx.get(f"{gateway.url}/v1/answers/{answer['answer_id']}",
                         headers={"Authorization": f"Bearer {key}"})

    assert by_id().json() == formatted
    harness.wait_for(lambda: asyncio.run(_records(pipeline, [answer["answer_id"]]))[
        answer["answer_id"]].status == "formatted", "the result in the store")
    got = by_id()
    assert got.json() == formatted
    again = httpx.get(f"{gateway.url}/v1/answers/{answer['answer_id']}",
                      headers={"Authorization": f"Bearer {key}",
                               "If-None-Match": got.headers["etag"]})
    assert again.status_code == 304
    # The produced envelope carries the tenant as a CloudEvents extension and header.
    [record] = [r for r in harness.read("answers.submitted")
                if r.key == answer["answer_id"].encode()]
    envelope = orjson.loads(record.value)
    assert envelope["tenant"] == "acme" and envelope["data"]["metadata"]["tenant"] == "acme"
    assert ("ce_tenant", b"acme") in record.headers
    # Access logs are JSON lines bound to the request, tenant and answer.
    lines = [e for e in harness.log_events("gateway") if e.get("event") == "request"
             and e.get("route") == "/v1/answers"]
    assert lines and lines[0]["tenant"] == "acme"
    assert lines[0]["answer_id"] == answer["answer_id"] and lines[0]["request_id"]


def _submit_load(url: str, key: str, answers: list[dict[str, Any]], accepted: list[str],
                 stop: threading.Event, unexpected: list[str]) -> None:
    """Submit answers one after another until told to stop; remember every 202 (and any
    other answer, which should not happen)."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"},
                      timeout=30) as client:
        for answer in answers:
            if stop.is_set():
                return
            try:
                r = client.post("/v1/answers", content=orjson.dumps(answer))
            except httpx.HTTPError:
                continue  # the gateway died under this request: no 202, no promise
            if r.status_code == 202:
                accepted.append(answer["answer_id"])
            else:
                unexpected.append(f"{r.status_code} {r.text[:200]}")


def test_kill_9_the_gateway_during_a_submit_load(harness: Harness, pipeline: str) -> None:
    key = asyncio.run(_key(pipeline))
    first = Gateway(harness, pipeline, name="gateway-1")
    first.start()
    answers = small_answers(120, prefix="k9")
    for answer in answers:
        answer["metadata"] = None  # the key's tenant is stamped on it
    accepted: list[str] = []
    unexpected: list[str] = []
    stop = threading.Event()
    clients = [threading.Thread(target=_submit_load,
                                args=(first.url, key, answers[n::4], accepted, stop,
                                      unexpected))
               for n in range(4)]
    for thread in clients:
        thread.start()
    harness.wait_for(lambda: len(accepted) >= 30, "30 answers accepted", timeout=WAIT_S)
    first.kill()
    stop.set()
    for thread in clients:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in clients)
    # A new gateway process takes the rest; answers the dead one accepted stay accepted.
    second = Gateway(harness, pipeline, name="gateway-2")
    second.start()
    seen = set(accepted)
    rest = [a for a in answers if a["answer_id"] not in seen]
    _submit_load(second.url, key, rest, accepted, threading.Event(), unexpected)
    assert not unexpected
    assert len(accepted) == len(set(accepted)) >= len(answers) - 8
    records = _wait_formatted(harness, pipeline, accepted)
    assert all(r.tenant == "acme" and r.result for r in records.values())
    # Exactly one visible result each: the listing holds each id once.
    seen_ids: list[str] = []
    cursor: str | None = None
    with httpx.Client(base_url=second.url, headers={"Authorization": f"Bearer {key}"}) as c:
        while True:
            params = {"limit": "100", "status": "formatted", **({"cursor": cursor}
                                                                 if cursor else {})}
            page = c.get("/v1/answers", params=params).json()
            seen_ids += [item["answer_id"] for item in page["items"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
    assert len(seen_ids) == len(set(seen_ids))
    assert set(accepted) <= set(seen_ids)


def _race(url: str, key: str, bodies: list[bytes], statuses: dict[bytes, int]) -> None:
    """Submit `bodies` one after another, recording each one's status."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"},
                      timeout=60) as client:
        for body in bodies:
            statuses[body] = client.post("/v1/answers", content=body).status_code


def test_two_gateways_taking_the_same_answer_ids_at_once(harness: Harness,
                                                         pipeline: str) -> None:
    key = asyncio.run(_key(pipeline))
    gateways = [Gateway(harness, pipeline, name=f"gateway-{n}") for n in (1, 2)]
    for gateway in gateways:
        gateway.start()
    same = small_answers(40, prefix="race")
    contested = small_answers(20, prefix="contest")
    for answer in same + contested:
        answer["metadata"] = None
    same_bodies = [orjson.dumps(a) for a in same]
    first_bodies = [orjson.dumps(a) for a in contested]
    second_bodies = [orjson.dumps({**a, "text": a["text"] + " A second body."})
                     for a in contested]
    # Both gateways get every id, each in its own order (one reversed) and in two
    # threads, so that claims of one id meet in the store; contested ids with two bodies.
    orders = [same_bodies + first_bodies, (same_bodies + second_bodies)[::-1]]
    statuses: list[dict[bytes, int]] = [{}, {}]
    threads = [threading.Thread(target=_race, args=(gateway.url, key, order[n::2], found))
               for gateway, order, found in zip(gateways, orders, statuses, strict=True)
               for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=WAIT_S)
    assert not any(thread.is_alive() for thread in threads)
    first, second = statuses
    assert [first[b] for b in same_bodies] == [202] * 40
    assert [second[b] for b in same_bodies] == [202] * 40
    winners: dict[str, bytes] = {}
    for answer, one, other in zip(contested, first_bodies, second_bodies, strict=True):
        pair = sorted([first[one], second[other]])
        assert pair == [202, 409], (answer["answer_id"], pair)
        winners[answer["answer_id"]] = one if first[one] == 202 else other
    ids = [a["answer_id"] for a in same + contested]
    records = _wait_formatted(harness, pipeline, ids)
    for answer_id, body in winners.items():
        second_won = b"A second body." in body
        result = records[answer_id].result
        assert result is not None and (b"A second body." in result) == second_won, answer_id
    # A same-body repeat that found the answer not yet known stored was produced again
    # (at-least-once): any duplicate on the output is the same event, one event id per id.
    event_ids: dict[str, set[str]] = {}
    for record in harness.read("answers.formatted"):
        assert record.key is not None
        event_ids.setdefault(record.key.decode(), set()).add(orjson.loads(record.value)["id"])
    assert sorted(event_ids) == sorted(ids)
    assert all(len(found) == 1 for found in event_ids.values()), event_ids


def test_broker_down_is_503_and_nothing_is_recorded(harness: Harness, tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    key = asyncio.run(_key(url))
    dead = f"127.0.0.1:{free_port()}"  # nothing listens there
    gateway = Gateway(harness, url, bootstrap=dead)
    gateway.start(ready="/healthz")
    ready = httpx.get(f"{gateway.url}/readyz")
    assert ready.status_code == 503 and ready.json()["checks"]["broker"] is False
    answer = small_answers(1, prefix="down")[0]
    answer["metadata"] = None
    r = httpx.post(f"{gateway.url}/v1/answers", content=orjson.dumps(answer),
                   headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert r.status_code == 503
    assert int(r.headers["retry-after"]) > 0
    assert r.headers["content-type"] == "application/problem+json"
    assert asyncio.run(_records(url, [answer["answer_id"]])) == {}
    # Reads still work without the broker.
    got = httpx.get(f"{gateway.url}/v1/answers/{answer['answer_id']}",
                    headers={"Authorization": f"Bearer {key}"})
    assert got.status_code == 404


def test_two_tenants_using_the_same_answer_ids(harness: Harness, pipeline: str) -> None:
    """Answer ids are per tenant: tenant tb submitting ta's answer_ids (a single submit with
    ?wait= at the same moment, and a batch) is never a 409 and learns nothing of ta's;
    both tenants' answers go through the pipeline under the same Kafka key, each is
    formatted and stored on its own, and each tenant reads only its own result."""
    gateway = Gateway(harness, pipeline)
    gateway.start()
    keys = {tenant: asyncio.run(_key(pipeline, tenant)) for tenant in ("ta", "tb")}
    # Warm the stages up (group joins) so that ?wait= meets a steady pipeline.
    warm = small_answers(1, prefix="tenant-warm")
    harness.submit(warm)
    harness.wait_for_keys("answers.formatted", {warm[0]["answer_id"]})

    def of(tenant: str, answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # Each tenant's own body under the same id (its model, and its own text).
        return [{**a, "text": f"{a['text']} Said to {tenant}.",
                 "metadata": {"model": f"m-{tenant}"}} for a in answers]

    single = small_answers(1, prefix="tenant-single")
    batch = small_answers(5, prefix="tenant-batch")
    waited: dict[str, httpx.Response] = {}
    batches: dict[str, httpx.Response] = {}
    barrier = threading.Barrier(2)

    def submit(tenant: str) -> None:
        headers = {"Authorization": f"Bearer {keys[tenant]}"}
        barrier.wait()
        waited[tenant] = httpx.post(f"{gateway.url}/v1/answers?wait=30", headers=headers,
                                    content=orjson.dumps(of(tenant, single)[0]), timeout=60)
        batches[tenant] = httpx.post(f"{gateway.url}/v1/answers:batch", headers=headers,
                                     content=orjson.dumps(of(tenant, batch)), timeout=60)

    threads = [threading.Thread(target=submit, args=(tenant,)) for tenant in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=WAIT_S)
    assert not any(thread.is_alive() for thread in threads)
    ids = [a["answer_id"] for a in single + batch]
    for tenant, key in keys.items():
        # ?wait= gave the tenant's own result (not the other tenant's of the same id).
        r = waited[tenant]
        assert r.status_code == 200, r.text
        assert r.json()["metadata"] == {"model": f"m-{tenant}", "tenant": tenant}
        doc = batches[tenant].json()
        assert (doc["accepted"], doc["refused"]) == (5, 0), doc
        assert [line["status"] for line in doc["results"]] == [202] * 5
        records = _wait_formatted(harness, pipeline, ids, tenant)
        headers = {"Authorization": f"Bearer {key}"}
        for answer_id in ids:
            assert records[answer_id].tenant == tenant and records[answer_id].model == f"m-{tenant}"
            got = httpx.get(f"{gateway.url}/v1/answers/{answer_id}", headers=headers)
            assert got.status_code == 200 and got.headers["citeflow-status"] == "formatted"
            result = got.json()
            assert result["metadata"] == {"model": f"m-{tenant}", "tenant": tenant}
            assert f"Said to {tenant}." in result["text"]
        listed = httpx.get(f"{gateway.url}/v1/answers?limit=100", headers=headers).json()
        assert sorted((i["answer_id"], i["tenant"]) for i in listed["items"]) == sorted(
            (answer_id, tenant) for answer_id in ids)
    # One Kafka key, two answers: each id was formatted twice, by two events (one each).
    formatted: dict[str, set[str]] = {}
    for record in harness.read("answers.formatted"):
        assert record.key is not None
        value = orjson.loads(record.value)
        if record.key.decode() in ids:
            formatted.setdefault(record.key.decode(), set()).add(
                value["data"]["metadata"]["tenant"])
    assert formatted == {answer_id: {"ta", "tb"} for answer_id in ids}
