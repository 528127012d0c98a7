"""A model judge's second opinion end to end, on the embedded broker: the five stages, the
judging stage against a fake OpenAI-compatible server this test starts (a real socket),
the store sink, the gateway, and <citeflow-answer> in headless Chromium.

The answer is submitted and shown with its lexical verdicts first; the page follows the
stream (`live`); only then does the judging stage start, read the formatted result, ask
the fake judge (which answers `unsupported` for every claim: a fixture, not a judge) and
publish answer.judged. The chip changes in place to the model's verdict, named in the
preview card; GET /v1/answers/{id} keeps both opinions; /v1/pipeline lists the stage and
its closed breaker. The judge is then made unreachable: new answers keep their lexical
verdicts with `unavailable`, nothing is dead-lettered, and the breaker shows open.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import orjson
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from tests.browser import start_browser
from tests.integration.conftest import Harness, small_answers
from tests.integration.test_gateway_pipeline import Gateway, _key
from tests.services.gateway.pages.site import install_traps, traps_fired, wait_until
from tests.services.judging.fake_servers import FakeJudgeServer

pytestmark = pytest.mark.integration


def _always_unsupported(system: str, user: str) -> list[dict[str, Any]]:
    start = user.index("\n") + 1
    data = user[start:].split("\n", 2)[1]
    return [{"id": item["id"], "verdict": "unsupported",
             "rationale": "The passage does not state this.", "evidence": []}
            for item in json.loads(data)["items"]]


def test_the_refined_verdict_reaches_the_chip_in_place(harness: Harness, tmp_path) -> None:
    store_url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    harness.create_topics(["ingest", "scoring", "citations", "spans", "formatting", "store"])
    asyncio.run(_key(store_url))  # migrates the store
    key = asyncio.run(_scoped_key(store_url, {"submit", "read", "stream"}))
    gateway = Gateway(harness, store_url)
    gateway.start()  # first: its readiness wait is bounded, the stages' start-up is not
    for spec in ("ingest", "scoring", "citations", "spans", "formatting"):
        harness.start(spec)
    harness.start("store", CITEFLOW_STORE_URL=store_url)
    auth = {"Authorization": f"Bearer {key}"}
    answer = small_answers(1, prefix="judged")[0]
    answer["metadata"] = {"model": "m-1"}  # the gateway stamps the key's tenant
    answer_id = answer["answer_id"]
    r = httpx.post(f"{gateway.url}/v1/answers", content=orjson.dumps(answer), headers=auth,
                   timeout=60)
    assert r.status_code == 202, r.text

    def result() -> dict[str, Any]:
        return httpx.get(f"{gateway.url}/v1/answers/{answer_id}", headers=auth,
                         timeout=30).json()

    harness.wait_for(lambda: "renderings" in result(), "the lexical result")
    lexical = [c["support"]["verdict"] if c.get("support") else None
               for c in result()["citations"]]
    changed = [i for i, v in enumerate(lexical) if v not in (None, "unsupported")]
    assert changed, lexical  # some chip will change

    with FakeJudgeServer("openai", judge=_always_unsupported) as judge_server:
        driver = start_browser()
        try:
            driver.set_window_size(1280, 900)
            install_traps(driver)
            driver.get(f"{gateway.url}/answers/{answer_id}#key={key}")
            host = driver.find_element(By.CSS_SELECTOR, "citeflow-answer")
            wait_until(driver, lambda d: host.get_attribute("data-state") == "ready", 60)
            chips = host.shadow_root.find_elements(By.CSS_SELECTOR,
                                                   ".citation[data-citation-id]")
            assert not any(c.get_attribute("data-judge") for c in chips)
            driver.execute_script("arguments[0].setAttribute('live', '')", host)
            wait_until(driver, lambda d: host.get_attribute("data-live") == "on", 30)

            harness.start("judging", CITEFLOW_JUDGING="openai:judge-model",
                          CITEFLOW_JUDGING_BASE_URL=judge_server.base_url,
                          CITEFLOW_JUDGING_SCOPE="all", CITEFLOW_JUDGING_BREAKER="2/600")

            def refined(d: Any) -> bool:
                found = host.shadow_root.find_elements(By.CSS_SELECTOR,
                                                       ".citation[data-citation-id]")
                return all(found[i].get_attribute("data-judge") == "openai:judge-model"
                           for i in changed)

            wait_until(driver, refined, 120)
            chip = host.shadow_root.find_elements(By.CSS_SELECTOR,
                                                  ".citation[data-citation-id]")[changed[0]]
            assert chip.find_elements(By.CSS_SELECTOR, ".badge-unsupported")
            assert "judged by openai:judge-model" in chip.get_attribute("aria-label")
            ActionChains(driver).move_to_element(chip).perform()
            card = host.shadow_root.find_element(By.CSS_SELECTOR, ".card")
            wait_until(driver, lambda d: "judged by openai:judge-model" in card.text)
            assert "The passage does not state this." in card.text
            assert not traps_fired(driver)
        finally:
            driver.quit()

        # The store keeps both opinions; the answer's GET names who gave each verdict.
        harness.wait_for(lambda: "judgement" in result(), "the judgement in the store")
        body = result()
        for index in changed:
            citation = body["citations"][index]
            assert citation["support"]["verdict"] == lexical[index]
            assert citation["current"]["verdict"] == "unsupported"
            assert citation["current"]["judge"] == "openai:judge-model"
        listed = httpx.get(f"{gateway.url}/v1/answers?disagreement=true", headers=auth).json()
        assert [i["answer_id"] for i in listed["items"]] == [answer_id]

    # The judge is gone (its server stopped): answers keep their lexical verdicts, with
    # the reason, and nothing is dead-lettered; after two failures the breaker opens.
    later = small_answers(13, prefix="outage")[10:]  # other texts: none in the cache
    harness.submit(later)
    records = harness.wait_for_keys("answers.judged", {a["answer_id"] for a in later})
    outage = [orjson.loads(r.value)["data"] for r in records
              if r.key and r.key.decode().startswith("outage")]
    assert all(j["status"] == "unavailable" and j["verdict"] == j["lexical_verdict"]
               for data in outage for j in data["judgements"])
    assert harness.read("answers.formatted.dlq") == []
    assert "open" in {data["breaker"] for data in outage}
    # /v1/pipeline shows the breaker of the newest judged record; the three above were
    # judged at once, so the newest may be the first failure's (`closed`). One more answer,
    # judged once the breaker is open, is the newest: it says `open` (a trial call after the
    # cooldown fails and reopens it).
    last = small_answers(14, prefix="outage")[13:]
    harness.submit(last)
    harness.wait_for_keys("answers.judged", {a["answer_id"] for a in last})
    ops_key = asyncio.run(_scoped_key(store_url, {"ops", "read"}))

    def judging_health() -> dict[str, Any] | None:
        reply = httpx.get(f"{gateway.url}/v1/pipeline", timeout=60,
                          headers={"Authorization": f"Bearer {ops_key}"})
        if reply.status_code != 200:  # the probe's broker round trips ran out of time
            return None
        return next((s for s in reply.json()["stages"] if s["stage"] == "judging"), None)

    harness.wait_for(lambda: (judging_health() or {}).get("breaker") == "open",
                     "the open breaker in /v1/pipeline")


async def _scoped_key(url: str, scopes: set[str]) -> str:
    from services.store.sql import SqlStore

    store = SqlStore(url)
    try:
        _, secret = await store.create_key("acme", frozenset(scopes), rate_per_s=1e6)
        return secret
    finally:
        await store.close()
