"""The README's quickstart, run exactly as printed against a real gateway, broker, stages
and store: the Python snippet (client + a fake-LLM LangChain chain over two local
documents) verifies its answer, and the HTML page shows it with the component in headless
Chromium (its own origin, `localhost:8000` resolved to the test's gateway, the key in the
URL fragment, the gateway's CORS allowing the page's origin)."""

from __future__ import annotations

import asyncio
import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from services.broker import free_port
from tests.browser import start_browser
from tests.citeflow.test_client_gateway import _key
from tests.integration.conftest import REPO_ROOT, WAIT_S, Harness
from tests.integration.test_gateway_pipeline import Gateway, pipeline  # noqa: F401
from tests.services.gateway.pages.site import SCREENSHOTS, install_traps, traps_fired, wait_until

pytestmark = pytest.mark.integration
README = REPO_ROOT / "README.md"


def quickstart() -> dict[str, str]:
    """The code blocks of the README's quickstart section, by language."""
    text = README.read_text()
    section = text.split("<!-- quickstart:begin -->", 1)[1].split("<!-- quickstart:end -->")[0]
    return {m.group(1): m.group(2) for m in
            re.finditer(r"```(python|html)\n(.*?)```", section, re.DOTALL)}


def _serve(directory: Path, port: int) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _browser(gateway_port: int) -> Any:
    """Chromium resolving the README's localhost:8000 to the test's gateway."""
    import selenium.webdriver.chrome.webdriver as chrome

    original = chrome.WebDriver.__init__

    def with_rules(self: Any, *args: Any, options: Any = None, **kwargs: Any) -> None:
        options.add_argument(f"--host-resolver-rules=MAP localhost:8000 127.0.0.1:{gateway_port}")
        original(self, *args, options=options, **kwargs)

    chrome.WebDriver.__init__ = with_rules  # type: ignore[method-assign]
    try:
        return start_browser()
    finally:
        chrome.WebDriver.__init__ = original  # type: ignore[method-assign]


def test_the_quickstart_runs_as_printed(harness: Harness, pipeline: str,  # noqa: F811
                                        tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = quickstart()
    assert set(blocks) == {"python", "html"}
    page_port = free_port()
    monkeypatch.setenv("CITEFLOW_CORS_ORIGINS", f"http://localhost:{page_port}")
    gateway = Gateway(harness, pipeline)
    gateway.start()
    key = asyncio.run(_key(pipeline))
    ran = subprocess.run([sys.executable, "-c", blocks["python"]], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "clients" / "python"),
                              "CITEFLOW_URL": gateway.url,
                              "CITEFLOW_API_KEY": key}, capture_output=True, text=True,
                         timeout=WAIT_S, check=False)
    assert ran.returncode == 0, ran.stderr[-3000:]
    lines = ran.stdout.strip().splitlines()
    assert lines[0].startswith("Ishmael sails on the Pequod")
    verdicts = dict(re.findall(r"\('(\[\d\])', '(\w+)'\)", lines[1]))
    assert verdicts == {"[1]": "supported", "[2]": "supported"}, lines[1]
    assert lines[1].endswith(f"{gateway.url}/answers/quickstart-rag#key={key}")

    (tmp_path / "answer.html").write_text(blocks["html"])
    server = _serve(tmp_path, page_port)
    driver = _browser(gateway.port)
    try:
        install_traps(driver)
        driver.set_window_size(1200, 800)
        driver.get(f"http://localhost:{page_port}/answer.html#key={key}")
        element = driver.find_element(By.CSS_SELECTOR, "citeflow-answer")
        wait_until(driver, lambda d: element.get_attribute("data-state") in ("ready", "error"))
        assert element.get_attribute("data-state") == "ready", element.shadow_root.find_element(
            By.CSS_SELECTOR, ".answer").text
        assert "#key=" not in driver.current_url  # taken from the address bar
        chips = element.shadow_root.find_elements(By.CSS_SELECTOR, ".answer a.citation")
        assert len(chips) == 2
        for chip in chips:
            chip.click()
            wait_until(driver, lambda d: d.execute_script(
                "return arguments[0].shadowRoot.querySelector('.panel').dataset.state;",
                element) == "ready")
            marked = element.shadow_root.find_elements(
                By.CSS_SELECTOR, ".panel-body [data-citeflow-highlight]")
            assert marked and marked[0].text
        driver.save_screenshot(str(SCREENSHOTS / "quickstart-page.png"))
        assert traps_fired(driver) == []
    finally:
        driver.quit()
        server.shutdown()
