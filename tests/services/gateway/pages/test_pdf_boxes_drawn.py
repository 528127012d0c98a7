"""PDF highlight boxes as drawn: over the page image in headless Chromium, each box sits where
its rectangle puts it on the image (not on the figure, whose caption makes it taller), for a
quote at the top and one at the bottom of a page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from services.bench.reader_corpus import CorpusDocument, formatted, load_documents
from tests.conftest import CORPUS_DIR
from tests.services.gateway.pages.site import results_store, wait_until

PAGE = 3
ROOT = "document.querySelector('citeflow-answer').shadowRoot"
# Each box: where it is drawn and where its style puts it, in CSS pixels of the image's
# content box (inside any border).
MEASURE = f"""
const root = {ROOT};
return Array.from(root.querySelectorAll('.pdf-highlight')).map((box) => {{
  const img = box.closest('figure').querySelector('img');
  const i = img.getBoundingClientRect(), b = box.getBoundingClientRect();
  const x = i.left + img.clientLeft, y = i.top + img.clientTop;
  const w = img.clientWidth, h = img.clientHeight;
  return {{drawn: [b.left - x, b.top - y, b.right - x, b.bottom - y],
          meant: [parseFloat(box.style.left) * w / 100, parseFloat(box.style.top) * h / 100,
                  (parseFloat(box.style.left) + parseFloat(box.style.width)) * w / 100,
                  (parseFloat(box.style.top) + parseFloat(box.style.height)) * h / 100],
          height: h}};
}});
"""


def _plain_words(words: list[str]) -> str | None:
    """The first run of eight plain words (letters only: no code, brackets or numbers)."""
    for start in range(len(words) - 8):
        run = words[start : start + 8]
        if all(re.fullmatch(r"[A-Za-z]+[,.]?", w) for w in run):
            return " ".join(run).rstrip(",.")
    return None


def _answer(document: CorpusDocument) -> dict[str, Any]:
    chunks = [c for c in document.ingested.chunks if c.page == PAGE]
    top = next(q for c in chunks if (q := _plain_words(c.text.split())))
    bottom = next(q for c in reversed(chunks) if (q := _plain_words(c.text.split()[::-1])))
    quotes = [top, " ".join(reversed(bottom.split()))]
    text = " ".join(f'The paper says "{q}" [1].' for q in quotes)
    return {"answer_id": "pdf-boxes", "text": text, "sources": [{
        "index": 1, "kind": "document", "doc_id": document.doc_id, "title": document.title,
        "format": "pdf", "chunks": [
            {"chunk_id": c.chunk_id, "section_id": c.section_id, "page": c.page,
             "start_char": c.start_char, "text": c.text} for c in chunks]}]}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from services.bench.reader_site import reader_site

    documents = [d for d in load_documents(CORPUS_DIR) if d.doc_id == "tracemonkey"]
    answers = [formatted(_answer(documents[0]))]
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, documents, answers, tmp_path_factory.mktemp("site")) as running:
        yield running


def _open_unit(driver: Any, position: int) -> list[dict[str, Any]]:
    """Click verbatim unit `position` and return its boxes, once the page image is drawn."""
    units = driver.execute_script(f"return {ROOT}.querySelectorAll('.unit-verbatim');")
    driver.execute_script(f"{ROOT}.querySelector('.panel').dataset.state = 'clicked';")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", units[position])
    units[position].click()
    wait_until(driver, lambda d: d.execute_script(
        f"const r = {ROOT}; const img = r.querySelector('.pdf-page img');"
        "return r.querySelector('.panel').dataset.state === 'ready' && img && img.complete"
        " && img.clientHeight > 100;"))
    return list(driver.execute_script(MEASURE))


def test_boxes_are_drawn_where_their_rectangles_put_them_on_the_image(
        site: Any, driver: Any) -> None:
    driver.get(site.viewer_url("pdf-boxes"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               in ("ready", "error"))
    tops = []
    for position in (0, 1):
        boxes = _open_unit(driver, position)
        assert boxes
        for box in boxes:
            for drawn, meant in zip(box["drawn"], box["meant"], strict=True):
                assert abs(drawn - meant) <= 1.0, box
            tops.append(box["meant"][1] / box["height"])
    assert min(tops) < 0.3 and max(tops) > 0.7, tops  # the top and the bottom of the page


def test_a_quoted_sentence_sets_its_words_apart_on_the_page(site: Any, driver: Any) -> None:
    """The chip of a quoted sentence: the passage's boxes, and inside them the quoted
    words' boxes of their own (a second level of highlight)."""
    driver.get(site.viewer_url("pdf-boxes"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               in ("ready", "error"))
    chip = driver.execute_script(f"return {ROOT}.querySelector('.answer a.citation');")
    driver.execute_script(f"{ROOT}.querySelector('.panel').dataset.state = 'clicked';")
    chip.click()
    wait_until(driver, lambda d: d.execute_script(
        f"const r = {ROOT}; return r.querySelector('.panel').dataset.state === 'ready'"
        " && r.querySelector('.pdf-page img') !== null;"))
    boxes = driver.execute_script(f"""
        const rect = (b) => {{ const r = b.getBoundingClientRect();
                               return [r.left, r.top, r.right, r.bottom]; }};
        const root = {ROOT};
        return {{passage: Array.from(root.querySelectorAll('.pdf-highlight')).map(rect),
                quote: Array.from(root.querySelectorAll('[data-citeflow-quote]')).map(rect)}};""")
    assert boxes["passage"] and boxes["quote"]
    for q in boxes["quote"]:  # each quote box lies inside a passage box
        assert any(p[0] - 1 <= q[0] and p[1] - 1 <= q[1] and q[2] <= p[2] + 1
                   and q[3] <= p[3] + 1 for p in boxes["passage"]), (q, boxes["passage"])
