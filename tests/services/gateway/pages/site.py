"""Browser helpers for the reader's page tests: traps installed before any page script (calls
of alert & co., script errors, CSP violations are recorded), a results store, opening the
viewer and clicking with an explicit wait for the panel (no fixed sleeps)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

SCREENSHOTS = Path(__file__).resolve().parents[4] / ".citeflow" / "screenshots"
SCREENSHOTS.mkdir(parents=True, exist_ok=True)

TRAPS = """
window.__fired = [];
window.__violations = [];
for (const name of ["alert", "confirm", "prompt", "print"]) {
  window[name] = function (...args) { window.__fired.push(name + "(" + args.join(", ") + ")"); };
}
window.addEventListener("error", (e) => {
  if (e instanceof ErrorEvent) window.__fired.push("script error: " + e.message);
});
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(e.violatedDirective + " " + (e.sample || ""));
});
"""


def install_traps(driver: Any) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TRAPS})


def traps_fired(driver: Any) -> list[str]:
    return list(driver.execute_script("return window.__fired || [];"))


def violations(driver: Any) -> list[str]:
    return list(driver.execute_script("return window.__violations || [];"))


@contextmanager
def results_store(directory: Path) -> Iterator[Any]:
    """The real SQL results store (SQLite in `directory`)."""
    try:
        from services.gateway.app import open_store

        store = open_store(f"sqlite+aiosqlite:///{directory / 'citeflow.db'}")
    except ImportError as exc:  # the store's package is not in this tree
        pytest.skip(f"the results store is not available: {exc}")
    yield store


# A liveness bound (a hung page fails, a slow one does not): it outlasts a reader job's wait
# and run under the tests (120 s each, tests/conftest.py), so a read that fails shows as its
# error on the page, not as a timeout here.
WAIT_S = 300.0


def wait_until(driver: Any, condition: Any, timeout: float = WAIT_S) -> Any:
    """Poll `condition` until truthy. It queries the DOM afresh on every poll, so an element
    the page replaced between its find and its read (stale) is just another poll."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def shadow(driver: Any) -> Any:
    """The shadow root of the viewer's <citeflow-answer> (find_element(s) by CSS only)."""
    return driver.find_element("id", "citeflow-answer").shadow_root


def open_viewer(driver: Any, site: Any, answer_id: str) -> None:
    driver.get(site.viewer_url(answer_id))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               in ("ready", "error"))
    assert driver.find_element("id", "viewer").get_attribute("data-state") == "ready", (
        shadow(driver).find_element("css selector", ".answer").text)


def click_and_wait(driver: Any, element: Any) -> None:
    """Click and wait for the panel to say it is ready (a fresh open, not the last one)."""
    driver.execute_script(
        "document.getElementById('citeflow-answer').shadowRoot.querySelector('.panel').dataset.state = 'clicked';")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()
    wait_until(driver, lambda d: shadow(d).find_element("css selector", ".panel")
               .get_attribute("data-state") == "ready")


def marked_text(driver: Any) -> str:
    """The text of every highlight mark in the viewer's panel, joined by spaces."""
    return driver.execute_script(
        "return Array.from(document.getElementById('citeflow-answer').shadowRoot"
        ".querySelectorAll('.panel-body [data-citeflow-highlight]'))"
        ".map((m) => m.textContent).join(' ');")


def highlight_boxes(driver: Any) -> list[tuple[int, list[float]]]:
    """(page, [x0, y0, x1, y1] as fractions of the page) of every PDF highlight box in the
    viewer's panel."""
    return driver.execute_script("""
        return Array.from(document.getElementById('citeflow-answer').shadowRoot
          .querySelectorAll('.panel-body .pdf-highlight')).map((b) => [
          Number(b.closest('figure').dataset.page),
          [parseFloat(b.style.left) / 100, parseFloat(b.style.top) / 100,
           (parseFloat(b.style.left) + parseFloat(b.style.width)) / 100,
           (parseFloat(b.style.top) + parseFloat(b.style.height)) / 100]]);""")


@contextmanager
def answers_site(factory: pytest.TempPathFactory, answers: list[bytes],
                 documents: Sequence[Any] = ()) -> Iterator[Any]:
    """A running reader site (`services.bench.reader_site`) over a fresh results store
    holding `answers` (formatted JSON) and `documents`."""
    from services.bench.reader_site import reader_site

    with results_store(factory.mktemp("store")) as store, reader_site(
            store, list(documents), answers, factory.mktemp("site")) as running:
        yield running
