"""The source panel says why a verdict is what it is (the words the source lacks, a better
source, a word-for-word quote), and a quoted sentence's passage sets the quoted words apart
from the rest of the passage (two levels of highlight), in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from services.bench.reader_corpus import formatted
from tests.services.gateway.pages.site import results_store, traps_fired, wait_until

ROOT = "document.querySelector('citeflow-answer').shadowRoot"
ANSWER = {
    "answer_id": "why-1",
    "text": ("The Eiffel Tower stands in Paris and is 330 metres tall [1]. Ishmael goes to sea "
             'whenever he finds himself "growing grim about the mouth" [2].'),
    "sources": [
        {"index": 1, "kind": "web", "title": "Cats", "url": "https://example.org/cats",
         "chunks": [{"text": "Cats sleep for most of the day. The tower of the cat tree is tall."}]},
        {"index": 2, "kind": "web", "title": "Moby-Dick", "url": "https://example.org/moby",
         "chunks": [{"text": "It is a way I have of driving off the spleen. Whenever I find "
                             "myself growing grim about the mouth; whenever it is a damp, "
                             "drizzly November in my soul, then, I account it high time to "
                             "get to sea."}]},
        {"index": 3, "kind": "web", "title": "Eiffel", "url": "https://example.org/eiffel",
         "chunks": [{"text": "The Eiffel Tower stands in Paris. It is 330 metres tall."}]}],
    "metadata": {"tenant": "demo", "model": "test-model"},
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from services.bench.reader_site import reader_site

    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, [], [formatted(ANSWER)], tmp_path_factory.mktemp("site")) as running:
        yield running


def _open_chip(driver: Any, position: int) -> dict[str, Any]:
    chips = driver.execute_script(f"return {ROOT}.querySelectorAll('.answer a.citation');")
    driver.execute_script(f"{ROOT}.querySelector('.panel').dataset.state = 'clicked';")
    chips[position].click()
    wait_until(driver, lambda d: d.execute_script(
        f"return {ROOT}.querySelector('.panel').dataset.state === 'ready';"))
    return dict(driver.execute_script(f"""
        const r = {ROOT}, why = r.querySelector('.panel-why');
        const outer = r.querySelector('.panel-body mark[data-citeflow-highlight]');
        const inner = outer && outer.querySelector('mark[data-citeflow-quote]');
        return {{why: why.hidden ? '' : why.textContent,
                passage: outer ? outer.textContent : null,
                quote: inner ? inner.textContent : null,
                strong: inner ? getComputedStyle(inner).backgroundColor : null,
                light: outer ? getComputedStyle(outer).backgroundColor : null}};"""))


def test_the_panel_says_why_and_sets_the_quote_apart(site: Any, driver: Any) -> None:
    driver.get(site.viewer_url("why-1"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               in ("ready", "error"))
    weak = _open_chip(driver, 0)
    # (the whole unsupported claim: `Tower`, a word source 1 holds, lies inside its phrase)
    assert "Not in the source: The, Eiffel, Tower, stands, in, Paris, 330, metres." in weak["why"]
    assert "Source [3] (Eiffel) supports it better." in weak["why"]
    assert weak["quote"] is None  # nothing quoted: one level
    quoted = _open_chip(driver, 1)
    assert "growing grim about the mouth" in quoted["why"] and "word for word" in quoted["why"]
    assert quoted["quote"] == "growing grim about the mouth"
    assert quoted["passage"].startswith("Whenever I find myself growing grim about the mouth;")
    assert quoted["strong"] != quoted["light"]  # two levels, drawn differently
    assert traps_fired(driver) == []


@pytest.fixture(scope="module")
def book_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from services.bench.reader_corpus import corpus_answers, load_documents
    from services.bench.reader_site import reader_site
    from tests.conftest import CORPUS_DIR

    documents = [d for d in load_documents(CORPUS_DIR) if d.doc_id == "moby-dick"]
    answers = [formatted(a) for a in corpus_answers(documents + load_documents(CORPUS_DIR)[1:])
               if a["answer_id"] == "corpus-epub"]
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, documents, answers, tmp_path_factory.mktemp("site")) as running:
        yield running


def test_an_epub_passage_sets_the_quote_apart(book_site: Any, driver: Any) -> None:
    driver.get(book_site.viewer_url("corpus-epub"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               in ("ready", "error"))
    found = _open_chip(driver, 0)
    quoted = driver.execute_script(f"""
        const marks = {ROOT}.querySelectorAll(
          '.panel-body mark[data-citeflow-highlight] mark[data-citeflow-quote]');
        return Array.from(marks).map((m) => m.textContent).join('');""")
    sentence = driver.execute_script(
        f"return {ROOT}.querySelector('.answer .unit-verbatim').textContent;")
    assert quoted and f'"{" ".join(quoted.split())}"' in " ".join(sentence.split())
    assert found["passage"] and len(" ".join(found["passage"].split())) >= len(quoted)
