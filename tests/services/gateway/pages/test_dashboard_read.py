"""The dashboard as a person reads it, in headless Chromium over the real store: the headline
rates per model now and in the previous period (support, invalid citations, coverage,
verdict mix), the worst recent answers each linking to its viewer, filters by model that
carry into those links (and back), legends readable without hovering, whole-number ticks on
counts, and panels as tall as their content. The expected figures are counted here from the
formatted results themselves, not read back from `/v1/stats`."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from services.pipeline import process_answer
from services.store.api import Position, ResultUpdate
from services.store.summary import summarize
from tests.services.gateway.pages.site import (
    SCREENSHOTS,
    results_store,
    traps_fired,
    violations,
    wait_until,
)

ROOT = Path(__file__).resolve().parents[4]
SOURCES = orjson.loads((ROOT / "services" / "examples" / "demo_answer.json").read_bytes())[
    "sources"][:2]
SOUND = 'Ishmael says it is "a way I have of driving off the spleen" [1].'
UNSUPPORTED = "Ishmael first sailed as a harpooneer in 1841 [1]."
INVALID = "Ishmael goes to sea to escape his debts [1]. He sails with Ahab [5]."
# (answer id, model, hours ago, text): `previous` is 6 to 12 hours ago (the 6-hour period's)
ANSWERS = (
    ("alpha-now-1", "alpha", 1, SOUND), ("alpha-now-2", "alpha", 2, UNSUPPORTED),
    ("alpha-before-1", "alpha", 8, SOUND), ("alpha-before-2", "alpha", 9, SOUND),
    ("beta-now-1", "beta", 1.5, INVALID), ("beta-before-1", "beta", 7, SOUND),
)


def _results() -> dict[str, dict[str, Any]]:
    found = {}
    for answer_id, model, _, text in ANSWERS:
        result = process_answer(orjson.dumps({
            "answer_id": answer_id, "text": text, "sources": SOURCES,
            "metadata": {"tenant": "demo", "model": model}}), event_id=answer_id)
        found[answer_id] = orjson.loads(result.model_dump_json())
    return found


def _expected(results: dict[str, dict[str, Any]], model: str, now: bool) -> dict[str, float]:
    """Support rate, invalid-citation rate and mean coverage of one model's answers."""
    chosen = [results[a] for a, m, hours, _ in ANSWERS if m == model and (hours < 6) == now]
    citations = [c for r in chosen for c in r["citations"]]
    judged = [c for c in citations if c["valid"] and c.get("support")]
    return {"support_rate": sum(c["support"]["verdict"] == "supported" for c in judged)
            / len(judged),
            "invalid_citation_rate": sum(not c["valid"] for c in citations) / len(citations),
            "mean_coverage": sum(r["coverage"]["sentence_ratio"] for r in chosen) / len(chosen)}


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    return _results()


@pytest.fixture(scope="module")
def site(results: dict[str, dict[str, Any]],
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from services.bench.reader_site import reader_site

    now = datetime.now(UTC)
    updates = []
    for n, (answer_id, model, hours, _) in enumerate(ANSWERS):
        at = now - timedelta(hours=hours)
        data = results[answer_id]
        updates.append(ResultUpdate(
            answer_id=answer_id, tenant="demo", status="formatted", event_id=answer_id,
            event_time=at, position=Position("answers.formatted", 0, n), model=model,
            submitted_at=at, result=orjson.dumps(data), summary=summarize(data)))
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, [], [], tmp_path_factory.mktemp("site")) as running:
        running.call(store.apply(updates))
        yield running


def _ready(driver: Any) -> None:
    wait_until(driver, lambda d: d.execute_script(
        "return document.getElementById('dashboard').dataset.state === 'ready';"), 60)


def _measures(driver: Any, model: str) -> dict[str, tuple[float, float]]:
    cells = driver.execute_script(
        "return Array.from(document.querySelectorAll("
        "`#headline tr[data-model='${arguments[0]}'] td[data-measure]`), (c) =>"
        " [c.dataset.measure, c.dataset.now, c.dataset.previous]);", model)
    return {name: (float(now), float(before)) for name, now, before in cells
            if name != "answers"}


def test_the_dashboard_reads_at_a_glance(site: Any, results: dict[str, Any],
                                         driver: Any) -> None:
    driver.get(f"{site.base}/dashboard#key={site.key}")
    _ready(driver)
    for model in ("alpha", "beta"):
        shown = _measures(driver, model)
        now, before = _expected(results, model, True), _expected(results, model, False)
        for name in ("support_rate", "invalid_citation_rate", "mean_coverage"):
            assert shown[name] == pytest.approx((now[name], before[name])), (model, name)
    alpha = driver.find_element("css selector", "#headline tr[data-model='alpha']").text
    assert "▼" in alpha and "pts" in alpha and "was 100%" in alpha  # support fell
    # the verdict mix shows a part besides supported (partial, unverifiable or unsupported)
    assert driver.find_elements(
        "css selector", "#headline tr[data-model='alpha'] .mix :not(.mix-supported)")

    worst = driver.execute_script(
        "return Array.from(document.querySelectorAll('#worst li a'), (a) => a.getAttribute('href'));")
    assert {w.split("?")[0] for w in worst} == {"/answers/alpha-now-2", "/answers/beta-now-1"}

    # legends name the series without hovering; counts have whole-number ticks
    legend = driver.execute_script(
        "return document.querySelector('#chart-support .u-legend').textContent;")
    assert "alpha" in legend and "beta" in legend and "--" not in legend
    ticks = driver.execute_script(
        "return window.citeflowCharts['chart-tenants'].axes[1]._values;")
    assert ticks and all(str(t).isdigit() for t in ticks), ticks
    # the small panels are as tall as what they hold
    for tile in ("languages", "health"):
        slack = driver.execute_script("""
            const box = document.getElementById(arguments[0]);
            const tile = box.closest('section');
            return tile.getBoundingClientRect().bottom - box.getBoundingClientRect().bottom;""",
            tile)
        assert slack < 40, (tile, slack)
    driver.save_screenshot(str(SCREENSHOTS / "dashboard-read.png"))
    assert traps_fired(driver) == [] and violations(driver) == []


def test_filters_narrow_the_view_and_carry_into_the_viewer_links(site: Any,
                                                                 driver: Any) -> None:
    from selenium.webdriver.support.ui import Select

    driver.get(f"{site.base}/dashboard#key={site.key}")
    _ready(driver)
    driver.execute_script("document.getElementById('dashboard').dataset.state = 'changing';")
    Select(driver.find_element("css selector", "#filters select[name=model]")).select_by_value(
        "alpha")
    _ready(driver)
    assert "model=alpha" in driver.current_url
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#headline tr[data-model]'),"
        " (r) => r.dataset.model);")
    assert rows == ["all models", "alpha"]
    worst = driver.find_elements("css selector", "#worst li a")
    assert [a.get_attribute("pathname") for a in worst] == ["/answers/alpha-now-2"]
    assert "model=alpha" in worst[0].get_attribute("search")
    worst[0].click()
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")
    back = driver.find_element("css selector", "header.bar a[href^='/dashboard']")
    assert "model=alpha" in back.get_attribute("href")
    back.click()
    _ready(driver)
    assert driver.find_element("css selector", "#filters select[name=model]").get_attribute(
        "value") == "alpha"
    assert traps_fired(driver) == [] and violations(driver) == []


def test_screenshots_for_the_integrator(site: Any, driver: Any) -> None:
    """The dashboard and the viewer as a person first sees them (kept under
    .citeflow/screenshots/)."""
    driver.set_window_size(1280, 1500)
    driver.get(f"{site.base}/dashboard#key={site.key}")
    _ready(driver)
    driver.save_screenshot(str(SCREENSHOTS / "dashboard-full.png"))
    driver.get(site.viewer_url("alpha-now-2"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")
    driver.execute_script("document.getElementById('citeflow-answer').shadowRoot"
                          ".querySelector('.answer a.citation').click();")
    wait_until(driver, lambda d: d.execute_script(
        "return document.getElementById('citeflow-answer').shadowRoot"
        ".querySelector('.panel').dataset.state === 'ready';"))
    driver.save_screenshot(str(SCREENSHOTS / "viewer-open.png"))
    driver.set_window_size(1280, 900)
    assert (SCREENSHOTS / "viewer-open.png").stat().st_size > 0


CROSS_LANGUAGE = "Ismael geht zur See, wenn er schlechte Laune hat [1]."


@pytest.fixture(scope="module")
def mixed_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One model's answers of every verdict, stored now."""
    from services.bench.reader_site import reader_site

    now = datetime.now(UTC)
    updates, verdicts = [], []
    for n, text in enumerate((SOUND, UNSUPPORTED, CROSS_LANGUAGE, INVALID)):
        answer_id = f"gamma-{n}"
        data = orjson.loads(process_answer(orjson.dumps({
            "answer_id": answer_id, "text": text, "sources": SOURCES,
            "metadata": {"tenant": "demo", "model": "gamma"}}), event_id=answer_id
        ).model_dump_json())
        verdicts += [c["support"]["verdict"] for c in data["citations"] if c.get("support")]
        updates.append(ResultUpdate(
            answer_id=answer_id, tenant="demo", status="formatted", event_id=answer_id,
            event_time=now, position=Position("answers.formatted", 0, n), model="gamma",
            submitted_at=now, result=orjson.dumps(data), summary=summarize(data)))
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, [], [], tmp_path_factory.mktemp("site")) as running:
        running.call(store.apply(updates))
        yield running, verdicts


def test_the_verdict_mix_shows_partial_and_unverifiable_apart(mixed_site: Any,
                                                              driver: Any) -> None:
    site, verdicts = mixed_site
    assert {"partial", "unverifiable"} <= set(verdicts)  # the answers hold both
    driver.get(f"{site.base}/dashboard#key={site.key}")
    _ready(driver)
    parts = driver.execute_script(
        "return Array.from(document.querySelectorAll(\"#headline tr[data-model='gamma'] .mix "
        "span\"), (s) => [s.className, Number(s.dataset.count)]);")
    assert dict(parts) == {f"mix-{v}": verdicts.count(v) for v in set(verdicts)}
    key = driver.find_element("css selector", "#headline .mix-key").text
    assert "partial" in key and "unverifiable" in key and "partial or unverifiable" not in key
    driver.save_screenshot(str(SCREENSHOTS / "dashboard-verdict-mix.png"))
