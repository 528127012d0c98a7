"""The answer viewer in headless Chromium over the real gateway (create_app), the results
store and the corpus documents: every chip and verbatim unit of answers over moby-dick.epub,
tracemonkey.pdf, copy_paste_ligatures.pdf, the scanned c02-22.pdf, a text and a web source is
clicked and its highlight checked against the quote (EPUB, text, web), against the words
PyMuPDF finds on that page (PDF), or for the page-only note (scan). Screenshots go to
.citeflow/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import orjson
import pymupdf
import pytest

from services.bench.reader_corpus import corpus_answers, formatted, load_documents
from services.text.normalize import normalize_quote
from tests.conftest import CORPUS_DIR
from tests.services.gateway.pages.site import (
    highlight_boxes,
    marked_text,
    SCREENSHOTS,
    shadow,
    click_and_wait,
    open_viewer,
    results_store,
    traps_fired,
    wait_until,
)

ROOT = Path(__file__).resolve().parents[4]
CORPUS = CORPUS_DIR


@pytest.fixture(scope="module")
def corpus():
    documents = load_documents(CORPUS)
    answers = [formatted(answer) for answer in corpus_answers(documents)]
    return documents, answers


@pytest.fixture(scope="module")
def site(corpus, tmp_path_factory):
    from services.bench.reader_site import reader_site

    documents, answers = corpus
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, documents, answers, tmp_path_factory.mktemp("site")) as running:
        yield running


def _check_pdf(driver: Any, documents: dict[str, Any], doc_id: str, locator: dict) -> str:
    """The words PyMuPDF reads inside the highlight boxes are the quote: nothing more (no
    whole lines, no neighbours), nothing less."""
    note = shadow(driver).find_element("css selector", ".panel-note").text
    if doc_id == "huck-scan":
        assert note == "page only, no text layer" and not highlight_boxes(driver)
        return "scan"
    exact = locator["selector"]["exact"]
    boxes = highlight_boxes(driver)
    assert boxes, f"no highlight for {exact!r} ({note})"
    with pymupdf.open(stream=documents[doc_id].data) as pdf:
        lines = []
        for number, (x0, y0, x1, y1) in boxes:
            page = pdf[number - 1]
            width, height = page.rect.width, page.rect.height
            # A little inside the edges: PyMuPDF also reads a glyph that only touches it.
            box = pymupdf.Rect(x0 * width + 0.5, y0 * height, x1 * width - 0.5, y1 * height)
            assert box.height < 20, f"a box is taller than a line: {box}"
            lines.append(page.get_text("text", clip=box * page.derotation_matrix).strip())
    read = "\n".join(lines)
    assert normalize_quote(exact) in (normalize_quote(read),
                                      normalize_quote(read, keep_break_hyphens=True)), (
        read, exact)
    return "pdf"


def words(text: str) -> str:
    return " ".join(text.split())


def _check_text_fragment(href: str, selector: dict) -> None:
    """`#:~:text=[prefix-,]start[,end][,-suffix]` (URL Fragment Text Directives): every term
    percent-encoded, '-', ',' and '&' included; the terms are the quote and its context."""
    base, _, directive = href.partition("#:~:text=")
    assert base and directive
    terms = directive.split(",")
    prefix = terms.pop(0)[:-1] if terms[0].endswith("-") else None
    suffix = terms.pop()[1:] if terms[-1].startswith("-") else None
    for term in [t for t in (prefix, suffix, *terms) if t is not None]:
        assert not set(term) & set("-,&# "), term
    exact = words(selector["exact"])
    if len(terms) == 1:
        assert unquote(terms[0]) == exact
    else:
        assert exact.startswith(unquote(terms[0])) and exact.endswith(unquote(terms[1]))
    if prefix is not None:
        assert words(selector["prefix"]).endswith(unquote(prefix))
    if suffix is not None:
        assert words(selector["suffix"]).startswith(unquote(suffix))


def _check(driver: Any, documents: dict[str, Any], locator: dict, doc_id: str | None) -> str:
    kind = locator["type"]
    if kind == "pdf_text":
        return _check_pdf(driver, documents, doc_id or "", locator)
    marked = marked_text(driver)
    assert normalize_quote(marked) == normalize_quote(locator["selector"]["exact"]), (
        marked, locator)
    if kind == "web":
        link = shadow(driver).find_element("css selector", ".panel-body a.open-site")
        _check_text_fragment(link.get_attribute("href"), locator["selector"])
    return "epub" if kind == "epub_text" else kind


def test_every_chip_and_unit_lands_on_its_highlight(site, driver, corpus):
    documents = {d.doc_id: d for d in corpus[0]}
    seen: dict[str, int] = {}
    for result in corpus[1]:
        data = orjson.loads(result)
        open_viewer(driver, site, data["answer_id"])
        chips = shadow(driver).find_elements("css selector", ".answer .citation[data-citation-id]")
        assert len(chips) == len(data["citations"])
        for chip, citation in zip(chips, data["citations"], strict=True):
            click_and_wait(driver, chip)
            label = shadow(driver).find_element("css selector", ".panel-label").get_attribute("textContent")
            if not citation["valid"]:
                assert label == "Invalid citation"
                seen["invalid"] = seen.get("invalid", 0) + 1
                continue
            link = next(link for link in data["links"] if link["citation_id"] == citation["id"]
                        and link["sentence_index"] == citation["sentence_index"])
            assert label.startswith("Supporting passage")
            kind = _check(driver, documents, link["locator"], link["doc_id"])
            seen[kind] = seen.get(kind, 0) + 1
        units = [u for u in data["answer_units"]["units"] if u["kind"] == "verbatim"]
        nodes = shadow(driver).find_elements("css selector", ".answer .unit-verbatim")
        assert len(nodes) == len(units)
        for node, unit in zip(nodes, units, strict=True):
            click_and_wait(driver, node)
            assert shadow(driver).find_element("css selector", ".panel-label").get_attribute("textContent") == "Quoted passage"
            span = unit["source_spans"][0]
            _check(driver, documents, span["locator"], span["doc_id"])
            seen["unit"] = seen.get("unit", 0) + 1
            if span["doc_id"] == "huck-scan":
                driver.save_screenshot(str(SCREENSHOTS / "viewer-fallback.png"))
        shot = {"corpus-epub": "viewer-epub.png", "corpus-pdf": "viewer-pdf.png"}
        if data["answer_id"] in shot:
            click_and_wait(driver, nodes[0])
            driver.save_screenshot(str(SCREENSHOTS / shot[data["answer_id"]]))
        # Derived units are not clickable: a click opens nothing.
        driver.find_element("tag name", "body").send_keys("\ue00c")  # Esc
        wait_until(driver, lambda d: not shadow(d).find_element("css selector", ".panel").is_displayed())
        for derived in shadow(driver).find_elements("css selector", ".answer .unit-derived"):
            assert derived.get_attribute("role") is None
            driver.execute_script("arguments[0].click();", derived)
            assert not shadow(driver).find_element("css selector", ".panel").is_displayed()
        assert traps_fired(driver) == []
    assert {"epub", "pdf", "scan", "text", "web", "invalid", "unit"} <= set(seen), seen


def test_keyboard_opens_and_escape_closes(site, driver):
    open_viewer(driver, site, "corpus-epub")
    chip = shadow(driver).find_element("css selector", ".answer a.citation")
    assert "Citation [1]" in chip.get_attribute("aria-label")
    chip.send_keys("\ue007")  # Enter
    panel = shadow(driver).find_element("css selector", ".panel")
    wait_until(driver, lambda d: panel.get_attribute("data-state") == "ready")
    assert panel.is_displayed() and panel.get_attribute("role") == "dialog"
    assert shadow(driver).find_element("css selector", ".card").get_attribute("role") == "tooltip"
    focused = "return document.getElementById('citeflow-answer').shadowRoot.activeElement;"
    driver.execute_script(focused).send_keys("\ue00c")  # Esc
    wait_until(driver, lambda d: not panel.is_displayed())
    assert driver.execute_script(focused) == chip


def test_preview_card_on_focus(site, driver):
    open_viewer(driver, site, "corpus-text-web")
    chip = shadow(driver).find_element("css selector", ".answer a.citation")
    driver.execute_script("arguments[0].focus()", chip)
    card = shadow(driver).find_element("css selector", ".card")
    assert card.is_displayed()
    assert "Notes on citation quality" in card.text and "score" in card.text


def test_the_same_click_opens_the_same_highlight_after_a_reload(site, driver):
    seen = []
    for _ in range(2):
        open_viewer(driver, site, "corpus-pdf")
        click_and_wait(driver, shadow(driver).find_elements("css selector", ".answer .unit-verbatim")[1])
        seen.append((highlight_boxes(driver), shadow(driver).find_element("css selector", ".panel-note").text))
    assert seen[0] == seen[1] and seen[0][0]


def test_chapter_navigation_stays_in_the_panel(site, driver):
    open_viewer(driver, site, "corpus-epub")
    click_and_wait(driver, shadow(driver).find_element("css selector", ".answer a.citation"))
    first = shadow(driver).find_element("css selector", ".panel-body .chapter").get_attribute(
        "data-href")
    start = driver.current_url
    shadow(driver).find_element("css selector", "nav.chapter-nav button:last-of-type").click()
    wait_until(driver, lambda d: shadow(d).find_element("css selector", ".panel-body .chapter")
               .get_attribute("data-href") not in (None, first))
    assert not shadow(driver).find_elements("css selector", ".panel-body [data-citeflow-highlight]")
    assert driver.current_url == start and traps_fired(driver) == []
