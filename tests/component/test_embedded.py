"""<citeflow-answer> embedded in a foreign host page (its own origin, strict CSP and hostile
styles), two answers on one page, in headless Chromium over the real gateway and the corpus
documents: every chip and verbatim unit of the corpus answers opens the same passage with the
same highlight as the gateway's own viewer (the same component), no CSP violation, no script
error; the host's styles do not leak in, its theme (custom properties, ::part) does."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from services.bench.reader_corpus import corpus_answers, formatted, load_documents
from tests.component.host import host_site
from tests.conftest import CORPUS_DIR
from tests.services.gateway.pages.site import (
    SCREENSHOTS,
    results_store,
    traps_fired,
    violations,
    wait_until,
)

pytestmark = pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason="no test corpus")
TARGETS = ".answer .citation[data-citation-id], .answer .unit-verbatim"
OUTCOME = """
const root = arguments[0].shadowRoot;
const text = (sel) => root.querySelector(sel).textContent;
return [text('.panel-label'), text('.panel-title'), text('.panel-note'),
  Array.from(root.querySelectorAll('.panel-body [data-citeflow-highlight]')).map((m) =>
    [m.textContent, m.style.left, m.style.top, m.style.width, m.style.height,
     m.closest('figure') ? m.closest('figure').dataset.page : null])];
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from services.bench.reader_site import reader_site

    documents = load_documents(CORPUS_DIR)
    answers = [formatted(answer) for answer in corpus_answers(documents)]
    ids = [orjson.loads(a)["answer_id"] for a in answers]
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, documents, answers, tmp_path_factory.mktemp("site")) as running, \
            host_site(running.base, running.key) as host:
        yield running, host, ids


def _ready(driver: Any, count: int) -> list[Any]:
    wait_until(driver, lambda d: len(d.find_elements("css selector", "citeflow-answer"))
               == count and all(e.get_attribute("data-state") == "ready" for e in
                                d.find_elements("css selector", "citeflow-answer")))
    return list(driver.find_elements("css selector", "citeflow-answer"))


def _outcomes(driver: Any, host: Any) -> list[Any]:
    """Click every chip and verbatim unit of one element; what its panel showed each time."""
    found = []
    for target in host.shadow_root.find_elements("css selector", TARGETS):
        driver.execute_script("arguments[0].shadowRoot.querySelector('.panel')"
                              ".dataset.state = 'clicked';"
                              "arguments[1].scrollIntoView({block: 'center'});", host, target)
        target.click()
        wait_until(driver, lambda d: driver.execute_script(
            "return arguments[0].shadowRoot.querySelector('.panel').dataset.state;",
            host) == "ready")
        found.append(driver.execute_script(OUTCOME, host))
    return found


def test_two_embedded_answers_highlight_as_the_viewer_does(site, driver):
    gateway, host, ids = site
    assert len(ids) >= 2
    pairs = [ids[i:i + 2] for i in range(0, len(ids), 2)]
    pairs[-1] = pairs[-1] if len(pairs[-1]) == 2 else [pairs[-1][0], ids[0]]
    for pair in pairs:
        expected = []
        for answer_id in pair:
            driver.get(gateway.viewer_url(answer_id))
            [viewer] = _ready(driver, 1)
            expected.append(_outcomes(driver, viewer))
        driver.get(f"{host}/host.html?id={pair[0]}&id={pair[1]}")
        hosts = _ready(driver, 2)
        seen = [_outcomes(driver, element) for element in hosts]
        assert seen == expected, pair
        assert any(marks for outcome in seen for *_, marks in outcome), pair
        assert traps_fired(driver) == [] and violations(driver) == [], pair
    driver.save_screenshot(str(SCREENSHOTS / "component-host.png"))


def test_host_styles_stay_out_and_its_theme_comes_in(site, driver):
    _, host, ids = site
    driver.get(f"{host}/host.html?id={ids[0]}&id={ids[1]}")
    first = _ready(driver, 2)[0]
    style = driver.execute_script("""
        const root = arguments[0].shadowRoot;
        const chip = root.querySelector('.answer a.citation');
        const answer = getComputedStyle(root.querySelector('.answer'));
        return [answer.display, getComputedStyle(chip).backgroundColor,
                getComputedStyle(chip).color];""", first)
    assert style == ["block", "rgb(255, 240, 200)", "rgb(0, 90, 60)"]
    assert violations(driver) == [] and traps_fired(driver) == []


def test_changing_answer_id_loads_the_other_answer(site, driver):
    _, host, ids = site
    driver.get(f"{host}/host.html?id={ids[0]}&id={ids[1]}")
    first = _ready(driver, 2)[0]
    driver.execute_script("arguments[0].setAttribute('answer-id', arguments[1]);", first, ids[2])
    shown = ("return arguments[0].shadowRoot.querySelector('.answer [data-answer-id]')"
             "?.dataset.answerId;")
    wait_until(driver, lambda d: d.execute_script(shown, first) == ids[2])
    # ready two animation frames after the answer is shown (its first paint)
    wait_until(driver, lambda d: first.get_attribute("data-state") == "ready")
    assert violations(driver) == [] and traps_fired(driver) == []
