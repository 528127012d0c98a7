"""The component shows a citation's unsupported words: focusing its chip lists them in the
preview card as the answer writes them, and underlines them inside the sentence (a CSS
custom highlight over the answer's own text), in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from services.bench.reader_corpus import formatted
from tests.component.test_standalone import served
from tests.services.gateway.pages.site import wait_until

ANSWER = {"answer_id": "missing-1",
          "text": "Arnold joined Video Store Magazine in 1991, and he won an Oscar in Paris [1].",
          "sources": [{"index": 1, "kind": "web", "title": "About us",
                       "url": "https://example.org/about",
                       "chunks": [{"text": "Arnold joined Video Store Magazine in 1991.\n"
                                           "He covers home entertainment."}]}]}
PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self';
 connect-src 'self'; style-src 'self'; base-uri 'none'">
<title>missing</title><script src="citeflow.js" defer></script>
<script src="page.js" defer></script></head>
<body><citeflow-answer></citeflow-answer></body></html>"""


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    data = orjson.loads(formatted(ANSWER))
    for url in served(tmp_path, data, PAGE):
        yield url, data


def test_the_chip_lists_and_underlines_the_answers_unsupported_words(page, driver) -> None:
    url, data = page
    support = data["citations"][0]["support"]
    words = [word["text"] for word in support["missing_words"]]
    assert words and set(words) <= set(ANSWER["text"].split(" ")) | {"Paris", "1991"}
    driver.get(url)
    host = driver.find_element(By.CSS_SELECTOR, "citeflow-answer")
    wait_until(driver, lambda d: host.get_attribute("data-state") == "ready")
    root = host.shadow_root
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = driver.execute_script("return arguments[0].shadowRoot.activeElement;", host)
    assert "citation" in focused.get_attribute("class")
    card = root.find_element(By.CSS_SELECTOR, ".card")
    assert card.find_element(By.CSS_SELECTOR, ".missing").text == (
        "Not in the source: " + ", ".join(words))
    underlined = driver.execute_script("""
        const found = CSS.highlights.get('citeflow-missing');
        return found ? [...found].map((range) => range.toString()) : null;""")
    assert underlined is not None and sorted(underlined) == sorted(words)
    focused.send_keys(Keys.SHIFT, Keys.TAB)
    wait_until(driver, lambda d: d.execute_script(
        "return !CSS.highlights.has('citeflow-missing');"))
