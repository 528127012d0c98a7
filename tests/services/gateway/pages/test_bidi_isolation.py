"""Right-to-left overrides and other explicit bidi controls in untrusted text (the answer, a
source's title and excerpt, a model name) reorder nothing outside their own piece, and are
shown as visible tokens: in the HTML rendering on its own, in the viewer (the component: the
answer, the preview card, the panel, a rendering stored with the controls as character
references), and in the dashboard. Read in headless Chromium, by where each character is
drawn: text that reads left to right is drawn at increasing x."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from services.bench.reader_corpus import formatted
from tests.services.gateway.pages.site import answers_site, traps_fired, wait_until

RLO = "\u202e"
CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
EVIL_URL = "https://evil.example/moc.elppa"
ANSWER = {
    "answer_id": "bidi-1",
    "text": f"Open the attachment invoice{RLO}gnp.exe from the mail [1].",
    "sources": [{"index": 1, "kind": "web", "title": f"Apple support{RLO}", "url": EVIL_URL,
                 "chunks": [{"text": f"Open the attachment invoice{RLO}gnp.exe from the mail "
                                     "to see what you owe."}]}],
    "metadata": {"model": f"model{RLO}lmth.exe", "tenant": "demo"},
}

# x of each character of the first text node under `root` (light or shadow DOM, searched
# through open shadow roots) that holds `needle`; null when none does.
XS = """
function xs(root, needle) {
  const roots = [root];
  while (roots.length) {
    const node = roots.shift();
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.currentNode; n; n = walker.nextNode()) {
      if (n.shadowRoot) roots.push(n.shadowRoot);
      if (n.nodeType !== Node.TEXT_NODE) continue;
      const at = n.data.indexOf(needle);
      if (at < 0) continue;
      return Array.from(needle, (_, i) => {
        const range = document.createRange();
        range.setStart(n, at + i);
        range.setEnd(n, at + i + 1);
        return range.getBoundingClientRect().left;
      });
    }
  }
  return null;
}
"""


def _left_to_right(driver: Any, root_js: str, needle: str) -> bool:
    xs = driver.execute_script(XS + f"return xs({root_js}, arguments[0]);", needle)
    assert xs is not None, f"{needle!r} is not drawn"
    return all(a < b for a, b in zip(xs, xs[1:]))


def _raw_controls(driver: Any, root_js: str) -> list[str]:
    """The explicit bidi controls in the text under `root_js` (shadow roots included)."""
    text = driver.execute_script(XS.replace("function xs", "function unused") + f"""
        const roots = [{root_js}], texts = [];
        while (roots.length) {{
          const node = roots.shift();
          const walker = document.createTreeWalker(node, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
          for (let n = walker.currentNode; n; n = walker.nextNode()) {{
            if (n.shadowRoot) roots.push(n.shadowRoot);
            if (n.nodeType === Node.TEXT_NODE) texts.push(n.data);
          }}
        }}
        return texts.join('');""")
    return [f"U+{ord(ch):04X}" for ch in text if ch in CONTROLS]


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    return dict(orjson.loads(formatted(ANSWER)))


@pytest.fixture(scope="module")
def site(result: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with answers_site(tmp_path_factory, [orjson.dumps(result)]) as running:
        yield running


def test_the_html_rendering_isolates_and_shows_the_controls(
        result: dict[str, Any], driver: Any, tmp_path: Path) -> None:
    page = tmp_path / "rendering.html"
    page.write_text('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
                    f"<title>r</title></head><body>{result['renderings']['html']}</body></html>",
                    encoding="utf-8")
    driver.get(page.as_uri())
    assert _left_to_right(driver, "document.body", "gnp.exe")
    assert _left_to_right(driver, "document.body", EVIL_URL)
    assert _raw_controls(driver, "document.body") == []
    assert "\u27e8U+202E\u27e9gnp.exe" in driver.find_element("tag name", "body").text


def test_the_viewer_isolates_and_shows_the_controls(site: Any, driver: Any) -> None:
    driver.get(site.viewer_url("bidi-1"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")
    root = "document.getElementById('citeflow-answer').shadowRoot"
    answer = f"{root}.querySelector('.answer')"
    assert _left_to_right(driver, answer, "gnp.exe")
    assert _left_to_right(driver, answer, EVIL_URL)
    chip = driver.execute_script(f"return {root}.querySelector('.answer a.citation');")
    driver.execute_script("arguments[0].focus();", chip)  # the preview card
    wait_until(driver, lambda d: d.execute_script(f"return !{root}.querySelector('.card').hidden;"))
    card = f"{root}.querySelector('.card')"
    assert "Apple support\u27e8U+202E\u27e9" in driver.execute_script(
        f"return {card}.textContent;")
    assert _left_to_right(driver, card, "gnp.exe")
    driver.execute_script(f"{root}.querySelector('.panel').dataset.state = 'clicked';")
    chip.click()
    wait_until(driver, lambda d: d.execute_script(
        f"return {root}.querySelector('.panel').dataset.state === 'ready';"))
    panel = f"{root}.querySelector('.panel')"
    assert _left_to_right(driver, panel, "gnp.exe")
    assert _raw_controls(driver, "document.getElementById('citeflow-answer')") == []
    assert traps_fired(driver) == []


def test_a_rendering_stored_with_character_references_is_shown_safely(
        site: Any, result: dict[str, Any], driver: Any) -> None:
    """A rendering stored before the formatter made the controls visible holds `&#x202e;`:
    the component shows those too."""
    stored = {**result, "renderings": {**result["renderings"], "html": result["renderings"][
        "html"].replace("\u27e8U+202E\u27e9", "&#x202e;")}}
    assert "&#x202e;gnp.exe" in stored["renderings"]["html"]
    driver.get(site.viewer_url("bidi-1"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")
    driver.execute_script("""
        const old = document.getElementById('citeflow-answer');
        const fresh = document.createElement('citeflow-answer');
        fresh.id = 'stored';
        old.replaceWith(fresh);
        fresh.data = arguments[0];""", stored)
    root = "document.getElementById('stored').shadowRoot.querySelector('.answer')"
    assert _left_to_right(driver, root, "gnp.exe")
    assert _left_to_right(driver, root, EVIL_URL)
    assert _raw_controls(driver, "document.getElementById('stored')") == []


def test_the_dashboard_isolates_and_shows_the_controls(site: Any, driver: Any) -> None:
    driver.get(f"{site.base}/dashboard#key={site.key}")
    wait_until(driver, lambda d: d.execute_script(
        "return document.querySelector('#feed li[data-answer-id=\"bidi-1\"]') !== null;"))
    row = "document.querySelector('#feed li[data-answer-id=\"bidi-1\"]')"
    assert "model\u27e8U+202E\u27e9lmth.exe" in driver.execute_script(
        f"return {row}.textContent;")
    assert _left_to_right(driver, row, "lmth.exe")
    assert _raw_controls(driver, "document.getElementById('dashboard')") == []
