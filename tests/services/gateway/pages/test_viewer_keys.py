"""The viewer and dashboard in headless Chromium over the real gateway: a key in a link's
fragment never silently replaces the key a person is using (it was taken at once, and the
viewer, then the dashboard, showed another tenant's data), the tenant whose data is shown is
on the page, and a 60,000-character token wraps (the viewer was 683,470 px wide)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from services.bench.reader_corpus import formatted
from services.bench.reader_site import reader_site
from services.store.api import Position, ResultUpdate
from services.store.summary import summarize
from tests.component.host import serving_host
from tests.services.gateway.pages.site import open_viewer, results_store, wait_until

LONG = "x" * 60_000


def _answer(answer_id: str, text: str) -> dict[str, Any]:
    return {"answer_id": answer_id, "text": f"{text} [1].", "metadata": {"model": "m"},
            "sources": [{"index": 1, "kind": "document", "title": "Notes",
                         "chunks": [{"text": text}]}]}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    ours = [formatted(_answer("ours", "Our own answer.")),
            formatted(_answer("long", f"A long token {LONG} ends here."))]
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, [], ours, tmp_path_factory.mktemp("site")) as served:
        theirs = orjson.loads(formatted(_answer("ours", "Another tenant's answer.")))
        now = datetime.now(UTC)
        served.call(store.apply([ResultUpdate(
            answer_id="ours", tenant="other", status="formatted", event_id="other-ours",
            event_time=now, position=Position("answers.formatted", 0, 99), model="m",
            submitted_at=now, result=orjson.dumps(theirs), summary=summarize(theirs))]))
        _, other_key = served.call(store.create_key("other", frozenset({"read"})))
        yield served, other_key


def _fresh(driver: Any, site: Any) -> None:
    """A tab with no key kept: sessionStorage of the gateway's origin cleared."""
    driver.get(site.base + "/static/app/viewer.css")
    driver.execute_script("sessionStorage.clear();")


def _answer_text(driver: Any) -> str:
    """The viewer's answer text; empty while the page (re)loads."""
    return str(driver.execute_script(
        "const a = document.getElementById('citeflow-answer');"
        "const t = a && a.shadowRoot && a.shadowRoot.querySelector('.answer');"
        "return t ? t.textContent : '';"))


def _tenant_shown(driver: Any) -> str:
    return str(driver.execute_script(
        "const t = document.getElementById('citeflow-tenant'); return t ? t.textContent : '';"))


def test_a_key_in_a_link_does_not_replace_the_key_in_use(site: Any, driver: Any) -> None:
    served, other_key = site
    _fresh(driver, served)
    open_viewer(driver, served, "ours")  # our key, from our link: kept
    assert "Our own answer." in _answer_text(driver)
    assert driver.find_element("id", "citeflow-tenant").text == "tenant: demo"
    # A planted link: the same answer id with another tenant's key (opened from elsewhere:
    # on the same page, a new fragment alone loads nothing).
    driver.get(served.base + "/static/app/viewer.css")
    driver.get(f"{served.base}/answers/ours#key={other_key}")
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")
    assert "Our own answer." in _answer_text(driver)  # still ours
    assert "Another tenant" not in _answer_text(driver)
    assert driver.find_element("id", "citeflow-tenant").text == "tenant: demo"
    assert "another API key" in driver.find_element("id", "citeflow-key-offered").text
    assert "#key=" not in driver.current_url  # the key left the address bar all the same
    # The dashboard keeps our key too.
    driver.get(served.base + "/dashboard")
    wait_until(driver, lambda d: _tenant_shown(d) == "tenant: demo")
    # The person decides: switching is one click, and the tenant shown says so.
    driver.get(f"{served.base}/answers/ours#key={other_key}")
    wait_until(driver, lambda d: d.find_elements("id", "citeflow-use-linked-key"))
    driver.find_element("id", "citeflow-use-linked-key").click()
    wait_until(driver, lambda d: "Another tenant" in _answer_text(d))
    wait_until(driver, lambda d: _tenant_shown(d) == "tenant: other")


def test_a_very_long_token_wraps(site: Any, driver: Any) -> None:
    served, _ = site
    _fresh(driver, served)
    open_viewer(driver, served, "long")
    width = driver.execute_script("return document.documentElement.scrollWidth;")
    viewport = driver.execute_script("return window.innerWidth;")
    assert width <= viewport, (width, viewport)


HOST_JS = """
window.offers = 0;
document.addEventListener("citeflow-key-offered", (event) => {
  window.offers += 1;
  if (location.search.includes("accept")) event.detail.use();
});
"""


@pytest.fixture(scope="module")
def host(site: Any) -> Any:
    """A host page on another origin embedding <citeflow-answer fragment-key>, the API
    through its own route, which passes on the Authorization the component sends."""
    served, _ = site
    client = httpx.AsyncClient(base_url=served.base, timeout=60)

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(
            '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>host</title>'
            '<script src="/host.js"></script>'
            f'<script src="{served.base}/static/component/v1/citeflow.js" defer></script>'
            '</head><body><citeflow-answer answer-id="ours" gateway="/citeflow" fragment-key>'
            "</citeflow-answer></body></html>")

    async def script(request: Request) -> Response:
        return Response(HOST_JS, media_type="text/javascript")

    async def proxy(request: Request) -> Response:
        upstream = await client.get("/" + request.path_params["path"],
                                    params=request.query_params, headers={
                                        "Authorization": request.headers.get("authorization", "")})
        passed = {name: upstream.headers[name] for name in ("x-citeflow-tenant",)
                  if name in upstream.headers}
        return Response(upstream.content, upstream.status_code, passed,
                        media_type=upstream.headers.get("content-type"))

    app = Starlette(routes=[Route("/host.html", page), Route("/host.js", script),
                            Route("/citeflow/{path:path}", proxy)])
    with serving_host(app) as url:
        yield url


def _embedded_text(driver: Any) -> str:
    wait_until(driver, lambda d: d.find_element("css selector", "citeflow-answer")
               .get_attribute("data-state") in ("ready", "error"))
    return str(driver.execute_script(
        "return document.querySelector('citeflow-answer').shadowRoot"
        ".querySelector('.answer').textContent;"))


def test_a_planted_fragment_key_does_not_replace_the_host_page_s_key(
        site: Any, host: str, driver: Any) -> None:
    """On a host page using fragment-key, a planted key was kept in sessionStorage and
    showed the other tenant's answer under the host's answer-id on later visits."""
    served, other_key = site
    driver.get(host + "/host.js")
    driver.execute_script("sessionStorage.clear();")
    driver.get(f"{host}/host.html#key={served.key}")
    assert "Our own answer." in _embedded_text(driver)
    driver.get(f"{host}/host.js")
    driver.get(f"{host}/host.html#key={other_key}")  # the planted link
    assert "Our own answer." in _embedded_text(driver)
    assert driver.execute_script("return window.offers;") == 1
    assert driver.execute_script(
        "return document.querySelector('citeflow-answer').tenant;") == "demo"
    driver.get(f"{host}/host.html")  # a later visit: still the host's key
    assert "Our own answer." in _embedded_text(driver)
    # The host page decides: this one takes the offered key.
    driver.get(f"{host}/host.html?accept#key={other_key}")
    wait_until(driver, lambda d: "Another tenant" in _embedded_text(d))
