"""`citeflow bench reader`: click-to-highlight in headless Chromium.

The viewer measures itself: from the click event (performance.now() in its handler) to the
second animation frame after the highlight was inserted (the frame that shows it has been
painted), per source kind, cold (first open of that chapter or page since the gateway's
reader caches were emptied, browser cache off) and warm (opened before in the same page).
No sleeps or retries
in the page: it highlights as soon as the data arrives. The reference, measured in the same
page and run, is the floor any viewer pays: a click whose handler fetches a small file from
the same gateway and paints. The first render of a 1,000-word answer with 50 citations is
measured from navigation start to the chips wired and painted, beside the bare insertion and
paint of the same HTML.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from services.bench.reader_corpus import corpus_answers, formatted, load_documents
from services.bench.reader_site import Site, reader_site
from services.bench.workload import bench_answer
from services.gateway.documents.library import DocumentLibrary

TARGETS_MS = {"warm": 100.0, "cold": 400.0}
FLOOR_CLICKS = 20
BIG_ANSWER = "reader-1000-words"

_FLOOR = """
const done = arguments[arguments.length - 1];
const count = arguments[0];
const button = document.createElement("button");
document.body.append(button);
const times = [];
button.addEventListener("click", async () => {
  const started = performance.now();
  await (await fetch("/static/reader/common.js", {cache: "no-store"})).text();
  requestAnimationFrame(() => requestAnimationFrame(() => {
    times.push(performance.now() - started);
    if (times.length < count) button.click(); else { button.remove(); done(times); }
  }));
});
button.click();
"""
_BARE_RENDER = """
const done = arguments[arguments.length - 1];
const html = arguments[0];
const started = performance.now();
const box = document.createElement("div");
box.innerHTML = html;
document.body.append(box);
requestAnimationFrame(() => requestAnimationFrame(() => {
  const ms = performance.now() - started;
  box.remove();
  done(ms);
}));
"""


@dataclass(frozen=True)
class Figure:
    name: str
    samples: list[float]
    reference: str = ""

    def line(self) -> str:
        if not self.samples:
            return f"{self.name:<34} no samples"
        ordered = sorted(self.samples)
        p50 = statistics.median(ordered)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        return (f"{self.name:<34} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   "
                f"(n={len(ordered)}){self.reference}")


@contextmanager
def _browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        raise RuntimeError("bench reader needs chromium and chromedriver (make browser)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.set_script_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: Any, element_id: str, states: tuple[str, ...]) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 60, poll_frequency=0.01).until(
        lambda d: d.find_element("id", element_id).get_attribute("data-state") in states)


def _click_everything(driver: Any) -> list[dict[str, Any]]:
    """Click every valid chip and verbatim unit of the open viewer; its new timings."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("window.citeflowTimings.length = 0;")
    # The viewer is the <citeflow-answer> component: its chips are in its shadow root.
    targets = driver.find_element("id", "citeflow-answer").shadow_root.find_elements(
        "css selector", ".answer a.citation[data-citation-id], .answer .unit-verbatim")
    for target in targets:
        driver.execute_script(
            "document.getElementById('citeflow-answer').shadowRoot.querySelector('.panel').dataset.state = 'clicked';"
            "arguments[0].scrollIntoView({block: 'center'});", target)
        target.click()
        WebDriverWait(driver, 60, poll_frequency=0.01).until(lambda d: d.execute_script(
            "return document.getElementById('citeflow-answer').shadowRoot.querySelector('.panel').dataset.state;") == "ready")
    timings: list[dict[str, Any]] = driver.execute_script("return window.citeflowTimings;")
    return timings


def _reset_caches(site: Site, cache: Path) -> None:
    """Cold again: a fresh reader library and fresh reader processes (no opened documents,
    no page images), the processes started before the next round (as the gateway does)."""
    from services.gateway.documents.renderer import PageRenderer

    reader = site.app.state.reader
    reader.library = DocumentLibrary(reader.store, cache)
    reader.renderer.close()
    reader.renderer = PageRenderer(cache)
    for ready in reader.renderer.warm():
        ready.result(timeout=60)


def run(corpus: Path, rounds: int, store_url: str | None = None) -> list[str]:
    """The benchmark's lines."""
    from services.gateway.app import open_store

    documents = load_documents(corpus)
    answers = [formatted(answer) for answer in corpus_answers(documents)]
    big = formatted(bench_answer(BIG_ANSWER))
    answer_ids = [orjson.loads(answer)["answer_id"] for answer in answers]
    samples: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-reader-") as scratch_dir:
        scratch = Path(scratch_dir)
        store = open_store(store_url or f"sqlite+aiosqlite:///{scratch / 'citeflow.db'}")
        with reader_site(store, documents, [*answers, big], scratch) as site, \
                _browser() as driver:
            for round_number in range(rounds):
                _reset_caches(site, scratch / f"page-cache-{round_number}")
                for answer_id in answer_ids:
                    driver.get(site.viewer_url(answer_id))
                    _wait(driver, "viewer", ("ready",))
                    # Every click twice in the same page: the second time (and the first,
                    # for a section an earlier click opened) is warm.
                    for timing in _click_everything(driver) + _click_everything(driver):
                        temperature = "cold" if timing["cold"] else "warm"
                        samples.setdefault((timing["kind"], temperature), []).append(
                            timing["ms"])
            floor = driver.execute_async_script(_FLOOR, FLOOR_CLICKS)
            renders, bare = [], []
            for _ in range(max(3, rounds)):
                driver.get(site.viewer_url(BIG_ANSWER))
                _wait(driver, "viewer", ("ready",))
                renders.append(driver.execute_script("return performance.now();"))
                html = orjson.loads(big)["renderings"]["html"]
                bare.append(driver.execute_async_script(_BARE_RENDER, html))
            chips = len(driver.find_element("id", "citeflow-answer").shadow_root
                        .find_elements("css selector", ".answer .citation"))
    floor_line = Figure("reference: click, fetch, paint", floor)
    lines = ["click-to-highlight, measured in the page (click -> highlight painted)",
             floor_line.line()]
    for (kind, temperature), values in sorted(samples.items()):
        target = TARGETS_MS[temperature]
        lines.append(Figure(f"{kind:<5} {temperature}", values,
                            f"   target p95 < {target:.0f} ms").line())
    lines.append(f"first render of a 1,000-word answer with {chips} citation chips "
                 "(navigation start -> chips wired and painted)")
    lines.append(Figure("viewer first render", renders).line())
    lines.append(Figure("reference: bare insert + paint", bare).line())
    return lines
