"""The npm package's citeflow.js on its own (no gateway: the host hands the formatted answer
over as `.data`), in a page with a strict CSP of its own, in headless Chromium: a Hebrew
answer is laid out right to left and the rendering's own `dir` attributes and bidi
isolation survive; keyboard use (Tab to a chip shows its preview card as a tooltip, Enter
opens the passage, Escape closes it and gives focus back) works; no CSP violation."""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from services.bench.reader_corpus import formatted
from services.broker import free_port
from tests.services.gateway.pages.site import traps_fired, violations, wait_until

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "js"
ANSWER = {"answer_id": "rtl-1", "text": "הלווייתן הוא יונק ימי גדול [1].",
          "sources": [{"index": 1, "kind": "web", "title": "לווייתנים",
                       "url": "https://example.org/whales",
                       "chunks": [{"text": "הלווייתן הוא יונק ימי גדול שחי באוקיינוס."}]}]}
PAGE = """<!DOCTYPE html><html lang="he"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self';
 connect-src 'self'; style-src 'self'; base-uri 'none'">
<title>standalone</title><script src="citeflow.js" defer></script>
<script src="page.js" defer></script></head>
<body><citeflow-answer></citeflow-answer></body></html>"""
PAGE_JS = """fetch("answer.json").then((r) => r.json()).then((data) => {
  document.querySelector("citeflow-answer").data = data; });"""


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    data = orjson.loads(formatted(ANSWER))
    # The markup the formatting stage gives renderings.html: a direction and isolated runs,
    # kept as they are.
    data["renderings"]["html"] = data["renderings"]["html"].replace(
        '<div class="answer-text">', '<div class="answer-text" dir="rtl">').replace(
        "</ol>", '<li><bdi dir="ltr">Moby-Dick</bdi></li></ol>')
    for url in served(tmp_path, data, PAGE):
        yield url, data


def served(folder: Path, data: dict[str, Any], page: str) -> Iterator[str]:
    """The packaged component, `page` and the answer `data` served from `folder`: yields the
    page's URL, and stops the server after."""
    (folder / "answer.json").write_bytes(orjson.dumps(data))
    # What `npm pack` ships: the package folder after its prepack step (generate.py).
    subprocess.run([sys.executable, str(PACKAGE / "generate.py")], check=True)
    shutil.copy(PACKAGE / "citeflow.js", folder / "citeflow.js")
    (folder / "page.html").write_text(page)
    (folder / "page.js").write_text(PAGE_JS)
    port = free_port()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{port}/page.html"
    server.shutdown()


def test_rtl_answer_with_keyboard_only(page, driver) -> None:
    url, data = page
    driver.get(url)
    host = driver.find_element(By.CSS_SELECTOR, "citeflow-answer")
    wait_until(driver, lambda d: host.get_attribute("data-state") == "ready")
    root = host.shadow_root
    assert root.find_element(By.CSS_SELECTOR, ".layout").get_attribute("dir") == "rtl"
    dirs = driver.execute_script("""
        const list = (nodes) => Array.from(nodes).map((e) => e.localName + ':' + e.dir);
        const server = new DOMParser().parseFromString(arguments[1], 'text/html');
        return [list(arguments[0].shadowRoot.querySelectorAll('.answer [dir]')),
                list(server.body.querySelectorAll('[dir]'))];""",
        host, data["renderings"]["html"])
    assert dirs[0] == dirs[1] and {"div:rtl", "bdi:ltr"} <= set(dirs[0])

    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = driver.execute_script("return arguments[0].shadowRoot.activeElement;", host)
    if "citation" not in (focused.get_attribute("class") or ""):  # the quoted claim first
        focused.send_keys(Keys.TAB)
        focused = driver.execute_script("return arguments[0].shadowRoot.activeElement;", host)
    assert "citation" in focused.get_attribute("class")
    assert "supported" in focused.get_attribute("aria-label")
    card = root.find_element(By.CSS_SELECTOR, ".card")
    assert card.is_displayed() and card.get_attribute("role") == "tooltip"
    assert focused.get_attribute("aria-describedby") == card.get_attribute("id")
    focused.send_keys(Keys.ENTER)
    panel = root.find_element(By.CSS_SELECTOR, ".panel")
    wait_until(driver, lambda d: panel.get_attribute("data-state") == "ready")
    assert panel.get_attribute("role") == "dialog"
    mark = root.find_element(By.CSS_SELECTOR, ".panel-body mark[data-citeflow-highlight]")
    assert mark.text == data["links"][0]["locator"]["selector"]["exact"]
    driver.execute_script("return arguments[0].shadowRoot.activeElement;", host).send_keys(
        Keys.ESCAPE)
    wait_until(driver, lambda d: not panel.is_displayed())
    assert driver.execute_script("return arguments[0].shadowRoot.activeElement;",
                                 host) == focused
    assert violations(driver) == [] and traps_fired(driver) == []
