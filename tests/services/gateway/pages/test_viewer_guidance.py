"""What a first-time reader is told, in headless Chromium: the viewer says what the dots on
the chips mean and marks the chip whose panel is open; a web source's panel says why its
verdict is what it is; the gateway's root URL is a page linking the answers (each to its
viewer), the dashboard and the API docs, while a JSON client gets the same links as JSON."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from services.bench.reader_corpus import formatted
from tests.services.gateway.pages.site import (
    SCREENSHOTS,
    answers_site,
    traps_fired,
    violations,
    wait_until,
)

ROOT = "document.querySelector('citeflow-answer').shadowRoot"
ANSWER = {
    "answer_id": "guide-1",
    "text": ("Paris is where the Eiffel Tower stands [1]. It was painted green by the mayor of "
             "Lyon in 1820 [1]. Cats sleep for most of the day [2]. Dogs fly [7]."),
    "sources": [
        {"index": 1, "kind": "web", "title": "Eiffel", "url": "https://example.org/eiffel",
         "chunks": [{"text": "The Eiffel Tower stands in Paris. It is 330 metres tall."}]},
        {"index": 2, "kind": "web", "title": "Cats", "url": "https://example.org/cats",
         "chunks": [{"text": "Cats sleep for most of the day."}]}],
    "metadata": {"tenant": "demo", "model": "test-model"},
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with answers_site(tmp_path_factory, [formatted(ANSWER)]) as running:
        yield running


def _chips(driver: Any) -> list[Any]:
    return list(driver.execute_script(f"return {ROOT}.querySelectorAll('.answer .citation');"))


def _open(driver: Any, chip: Any) -> None:
    driver.execute_script(f"{ROOT}.querySelector('.panel').dataset.state = 'clicked';")
    chip.click()
    wait_until(driver, lambda d: d.execute_script(
        f"return {ROOT}.querySelector('.panel').dataset.state === 'ready';"))


def _expanded(driver: Any) -> list[str | None]:
    return [c.get_attribute("aria-expanded") for c in _chips(driver)]


def test_the_viewer_explains_the_dots_and_marks_the_open_chip(site: Any, driver: Any) -> None:
    driver.get(site.viewer_url("guide-1"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")
    legend = driver.execute_script(f"""
        const l = {ROOT}.querySelector('.legend');
        return l && {{text: l.textContent, visible: l.getBoundingClientRect().height > 0,
          verdicts: Array.from(l.querySelectorAll('[data-verdict]'), (i) => i.dataset.verdict)}};""")
    assert legend and legend["visible"], legend
    verdicts = driver.execute_script(
        f"return Array.from({ROOT}.querySelectorAll('.answer .citation .badge'), "
        "(b) => b.className.replace('badge badge-', ''));")
    assert set(verdicts) <= set(legend["verdicts"]) and "supported" in verdicts
    assert "supported: the source says it" in legend["text"]
    assert "unsupported: the source does not say it" in legend["text"]
    assert "invalid" in legend["verdicts"]  # [7] names no supplied source

    chips = _chips(driver)
    assert _expanded(driver) == ["false"] * len(chips)
    _open(driver, chips[0])
    assert _expanded(driver) == ["true"] + ["false"] * (len(chips) - 1)
    look = driver.execute_script(
        "return Array.from(arguments).map((c) => getComputedStyle(c).backgroundColor + ' '"
        " + getComputedStyle(c).outlineStyle);", *_chips(driver)[:3])
    assert look[0] != look[2]  # the open chip is drawn apart from the others
    _open(driver, _chips(driver)[1])
    assert _expanded(driver)[:3] == ["false", "true", "false"]
    driver.save_screenshot(str(SCREENSHOTS / "viewer-guidance.png"))
    driver.execute_script(f"{ROOT}.querySelector('.panel-close').click();")
    assert "true" not in _expanded(driver)
    assert traps_fired(driver) == [] and violations(driver) == []


def test_a_web_sources_panel_says_why(site: Any, driver: Any) -> None:
    driver.get(site.viewer_url("guide-1"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")
    for position, expected in ((0, "The passage says what the sentence says."),
                               (1, "The passage does not say what the sentence says.")):
        _open(driver, _chips(driver)[position])
        why = driver.execute_script(
            f"const w = {ROOT}.querySelector('.panel-why'); return w.hidden ? '' : w.textContent;")
        assert why.startswith(expected), why
    assert "Not in the source:" in why


def test_the_root_url_is_a_page_of_links(site: Any, driver: Any) -> None:
    driver.get(f"{site.base}/#key={site.key}")
    wait_until(driver, lambda d: d.find_elements("css selector", "#answers li a"))
    links = {a.get_attribute("pathname") for a in driver.find_elements("css selector", "a")}
    assert {"/dashboard", "/docs", "/answers/guide-1"} <= links
    driver.find_element("css selector", "#answers a[href='/answers/guide-1']").click()
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")  # the key went along (kept by the tab, never in the URL)
    driver.get(f"{site.base}/")
    driver.execute_script("sessionStorage.clear();")
    driver.get(f"{site.base}/")
    wait_until(driver, lambda d: d.find_element("id", "home-key").is_displayed())
    assert "#key=" in driver.find_element("id", "home-key").text
    assert traps_fired(driver) == [] and violations(driver) == []


def test_a_json_client_gets_the_links_as_json(site: Any) -> None:
    request = urllib.request.Request(f"{site.base}/", headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("application/json")
        links = orjson.loads(response.read())["links"]
    assert links["dashboard"] == "/dashboard" and links["api_docs"] == "/docs"
    assert links["answers"] == "/v1/answers"
    request = urllib.request.Request(f"{site.base}/", headers={"Accept": "text/html"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/html")
