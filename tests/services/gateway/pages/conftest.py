"""Fixtures of the page tests: one headless Chromium per test module, with the XSS traps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import start_browser
from tests.services.gateway.pages.site import install_traps


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    browser = start_browser()
    browser.set_window_size(1280, 900)
    install_traps(browser)
    yield browser
    browser.quit()
