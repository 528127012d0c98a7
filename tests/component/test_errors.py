"""What <citeflow-answer> says when it cannot load an answer, in headless Chromium over the
real gateway: with no key, how to give one (`#key=`); from a page whose origin the gateway
does not allow, that it is CORS and which setting allows it."""

from __future__ import annotations

from typing import Any

from services.bench.reader_site import reader_site
from tests.component.host import host_site
from tests.services.gateway.pages.site import results_store, wait_until

MESSAGE = "return arguments[0].shadowRoot.querySelector('.error')?.textContent;"


def _error(driver: Any) -> str:
    wait_until(driver, lambda d: d.find_element("css selector", "citeflow-answer")
               .get_attribute("data-state") == "error")
    return str(driver.execute_script(
        MESSAGE, driver.find_element("css selector", "citeflow-answer")))


def test_errors_say_what_to_do(tmp_path, driver) -> None:
    with results_store(tmp_path / "store") as store, \
            reader_site(store, [], [], tmp_path / "site") as gateway, \
            host_site(gateway.base, gateway.key) as host:
        driver.get(f"{gateway.base}/answers/some-answer")
        message = _error(driver)
        assert "an API key is required" in message and "#key=" in message, message

        driver.get(f"{host}/direct.html?id=some-answer#key={gateway.key}")
        message = _error(driver)
        assert "CORS" in message and f"CITEFLOW_CORS_ORIGINS={host}" in message, message
        assert gateway.base in message, message
