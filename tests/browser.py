"""A real headless browser as the last XSS oracle: Chromium, driven by Selenium.

`inert_findings` loads HTML fragments into one page of headless Chromium with traps for the
functions payloads call (`alert`, `confirm`, `prompt`, `print`, `open`), fires the usual
handler events at every element, and reads the browser's own DOM back: any element outside
the allowed tags, any `on*` or `style` attribute, any link or resource whose URL the browser
resolves to another scheme than http(s)/mailto (or the page's own), any navigation. The
findings name the fragment they come from.

The tests using it skip when Selenium, Chromium or ChromeDriver is missing (`make test`
installs Chromium and ChromeDriver from the Debian packages where it can).
"""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

# Installed before any fragment is parsed: every call of a function a payload would use to
# prove it ran is recorded instead of acted on.
_TRAP = """
window.__fired = [];
for (const name of ["alert", "confirm", "prompt", "print", "open"]) {
  window[name] = function (...args) {
    window.__fired.push(name + "(" + args.map(String).join(", ") + ")");
  };
}
// A script that fails still ran: its error (an ErrorEvent, not the probe's plain events).
window.addEventListener("error", (e) => {
  if (e instanceof ErrorEvent) window.__fired.push("script error: " + e.message);
});
"""

# Run after load: fire the events inline handlers listen for, then inspect the live DOM.
_PROBE = """
const [allowedTags, protocols, events] = arguments;
const start = location.href;
const elements = Array.from(document.querySelectorAll("[data-case] *"));
for (const el of elements) {
  for (const type of events) {
    el.dispatchEvent(new Event(type));
  }
}
const findings = [];
const own = new Set(protocols.concat([location.protocol]));
for (const el of elements) {
  const where = el.closest("[data-case]").dataset.case;
  const tag = el.localName;
  if (!allowedTags.includes(tag)) findings.push([where, "element <" + tag + ">"]);
  for (const attr of Array.from(el.attributes)) {
    const name = attr.name.toLowerCase();
    if (name.startsWith("on")) findings.push([where, "handler " + name + " on <" + tag + ">"]);
    if (name === "style") findings.push([where, "style attribute on <" + tag + ">"]);
    if (["href", "src", "action", "formaction", "data", "xlink:href"].includes(name)) {
      let scheme;
      try { scheme = new URL(attr.value, document.baseURI).protocol; }
      catch (e) { scheme = "unparsable:"; }
      if (!own.has(scheme)) {
        findings.push([where, "URL " + name + "=" + JSON.stringify(attr.value) + " on <" + tag + ">"]);
      }
    }
  }
}
if (document.scripts.length !== 1) findings.push(["page", document.scripts.length + " scripts"]);
if (location.href !== start) findings.push(["page", "navigated to " + location.href]);
for (const call of window.__fired) findings.push(["page", "ran " + call]);
return findings;
"""

PROTOCOLS = ("http:", "https:", "mailto:")
# The events inline handlers of the payloads listen for (clicks are left out: following a
# link is not script; where links lead is checked from their URLs).
EVENTS = (
    "error", "load", "mouseover", "mouseenter", "mouseout", "mousedown", "mouseup",
    "pointerover", "pointerdown", "focus", "focusin", "blur", "keydown", "keyup", "input",
    "change", "toggle", "animationstart", "animationend", "transitionend", "wheel",
    "scroll", "copy", "paste", "drag", "dragstart", "drop", "submit", "reset", "select",
)


def start_browser() -> Any:
    """A headless Chromium session; skips the calling test when there is none to start."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not chromium or not chromedriver:
        pytest.skip("no chromium/chromedriver here (make test installs them where it can)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--disable-extensions"):
        options.add_argument(argument)
    # The driver is named, so Selenium Manager never goes looking for one on the network.
    return webdriver.Chrome(service=Service(chromedriver), options=options)


def inert_findings(
    driver: Any, fragments: Sequence[str], allowed_tags: frozenset[str], page: Path,
) -> list[tuple[int, str]]:
    """Load `fragments` (each in its own numbered container) as one page written to `page`,
    and return what the browser found executable or out of place: (fragment index, finding),
    with -1 for the page as a whole."""
    body = "".join(
        f'<div data-case="{i}">{fragment}</div>' for i, fragment in enumerate(fragments)
    )
    page.write_text(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>probe</title>"
        f"<script>{_TRAP}</script></head><body>{body}</body></html>",
        encoding="utf-8",
    )
    driver.get(page.as_uri())
    found = driver.execute_script(
        _PROBE, sorted(allowed_tags), list(PROTOCOLS), list(EVENTS)
    )
    return [(-1 if where == "page" else int(where), what) for where, what in found]


def describe(findings: list[tuple[int, str]], labels: Sequence[str], limit: int = 5) -> str:
    """The first findings, each with the label (e.g. the payload) of its fragment."""
    lines = [
        f"{json.dumps(labels[i]) if i >= 0 else 'page'}: {html.unescape(what)}"
        for i, what in findings[:limit]
    ]
    return f"{len(findings)} findings:\n" + "\n".join(lines)
