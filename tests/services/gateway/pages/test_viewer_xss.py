"""Every payload of tests/corpus/xss in answer text, source titles, source URLs and EPUB
chapter content, through the real pipeline, gateway and viewer in headless Chromium: no
script runs (alert & co. trapped, script errors recorded) while chips are hovered, focused
and clicked and chapters opened, no inline handler or foreign URL reaches the DOM, and the
Content-Security-Policy blocks an inline handler even when one is forced in."""

from __future__ import annotations

from typing import Any

import pytest

from services.bench.reader_corpus import CorpusDocument, formatted
from services.ingest.documents.ingest import ingest_document
from tests.services.ingest.documents.builders import Chapter, EpubSpec, build_epub
from tests.services.gateway.pages.site import (
    SCREENSHOTS,
    shadow,
    click_and_wait,
    open_viewer,
    results_store,
    traps_fired,
    violations,
)
from tests.xss_corpus import xss_payloads

GROUP = 120
CHAPTER_TEXT = "The harmless sentence that the answer quotes from the hostile chapter."
# Whatever the payloads did, the live DOM must have none of this.
_DOM_PROBE = """
const found = [];
for (const el of document.getElementById('citeflow-answer').shadowRoot.querySelectorAll('.answer *, .panel-body *, .card *')) {
  for (const attr of Array.from(el.attributes)) {
    const name = attr.name.toLowerCase();
    if (name.startsWith('on')) found.push('handler ' + name + ' on ' + el.localName);
    if (['href', 'src', 'action', 'formaction', 'xlink:href'].includes(name)) {
      let scheme = 'unparsable:';
      try { scheme = new URL(attr.value, document.baseURI).protocol; } catch (e) {}
      if (!['http:', 'https:', 'mailto:', 'blob:'].includes(scheme)) {
        found.push('URL ' + attr.value + ' on ' + el.localName);
      }
    }
  }
  if (['script', 'iframe', 'object', 'embed', 'form', 'base', 'meta', 'link']
      .includes(el.localName)) found.push('element ' + el.localName);
}
return found;
"""
_EVENTS = """
for (const el of document.getElementById('citeflow-answer').shadowRoot.querySelectorAll('.answer *, .panel-body *')) {
  for (const type of ['mouseover', 'focus', 'error', 'load', 'animationstart', 'toggle']) {
    el.dispatchEvent(new Event(type));
  }
}
"""


def _hostile_epub(payloads: list[str]) -> bytes:
    body = "".join(f"<div>{payload}</div>" for payload in payloads)
    chapter = (f"<html><head><script>alert('head')</script></head><body>"
               f"<p>{CHAPTER_TEXT}</p>{body}</body></html>")
    return build_epub(EpubSpec([Chapter("c1.xhtml", chapter)], opf_dir="OPS"))


def _answer(number: int, payloads: list[str]) -> dict[str, Any]:
    sources: list[dict[str, Any]] = [{
        "index": 1, "kind": "document", "doc_id": "hostile-book", "title": payloads[0],
        "format": "epub", "chunks": [{"chunk_id": "hb:0", "section_id": "hostile-book:0",
                                      "href": "OPS/c1.xhtml", "start_char": 0,
                                      "text": CHAPTER_TEXT}]}]
    text = [f'The book says "{CHAPTER_TEXT[4:40]}" [1].']
    for offset, payload in enumerate(payloads, start=2):
        sources.append({"index": offset, "kind": "web", "title": payload, "url": payload,
                        "chunks": [{"chunk_id": f"w{offset}", "text": f"{payload} evidence"}]})
        text.append(f"{payload} [{offset}].")
    return {"answer_id": f"xss-{number}", "text": " ".join(text), "sources": sources,
            "options": {"max_citations": 1000},
            "metadata": {"model": "xss"}}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from services.bench.reader_site import reader_site

    payloads = xss_payloads()
    groups = [payloads[i: i + GROUP] for i in range(0, len(payloads), GROUP)]
    data = _hostile_epub(payloads)
    book = CorpusDocument("hostile-book", "epub", "hostile", data,
                          ingest_document(data, "hostile-book"))
    answers = [formatted(_answer(number, group)) for number, group in enumerate(groups)]
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, [book], answers, tmp_path_factory.mktemp("site")) as site:
        yield site, len(groups)


def test_no_payload_runs_anywhere_in_the_viewer(hostile, driver):
    site, answers = hostile
    for number in range(answers):
        open_viewer(driver, site, f"xss-{number}")
        chips = shadow(driver).find_elements("css selector", ".answer .citation[data-citation-id]")
        for chip in chips:  # hover and focus every chip: preview cards with hostile titles
            driver.execute_script(
                "arguments[0].dispatchEvent(new Event('mouseenter'));"
                "arguments[0].focus(); arguments[0].blur();", chip)
        # The hostile chapter, and hostile web passages and URLs in the panel.
        for chip in chips[:1] + chips[1::25]:
            click_and_wait(driver, chip)
            driver.execute_script(_EVENTS)
            assert driver.execute_script(_DOM_PROBE) == [], f"xss-{number}"
        assert traps_fired(driver) == [], f"xss-{number}"
        if number == 0:
            driver.save_screenshot(str(SCREENSHOTS / "viewer-xss.png"))


def test_chapter_scripts_never_run_and_csp_blocks_inline_handlers(hostile, driver):
    site, _ = hostile
    open_viewer(driver, site, "xss-0")
    click_and_wait(driver, shadow(driver).find_element("css selector", ".answer a.citation"))
    assert shadow(driver).find_elements("css selector", ".panel-body .chapter")
    assert "<script" not in driver.execute_script(
        "return document.getElementById('citeflow-answer').shadowRoot.querySelector('.panel-body').innerHTML")
    # Force an inline handler past every sanitiser: the policy still refuses to run it.
    driver.execute_script(
        "document.body.insertAdjacentHTML('beforeend', "
        "'<img id=forced src=/nonexistent.png onerror=\"alert(1)\">');")
    from tests.services.gateway.pages.site import wait_until

    wait_until(driver, lambda d: violations(d))
    assert traps_fired(driver) == []
    assert any("script-src" in v for v in violations(driver)), violations(driver)

