"""A citation's evidence set in the viewer, in headless Chromium: every passage of the set
highlighted, the passage of the claim under the pointer (in the panel's list or in the
answer itself) or the keyboard focus set apart; the answer's unsupported words underlined in
the text and listed in the preview card as the answer spells them, in every script; a
passage's context that ends a sentence gets no ellipsis after its full stop.
Screenshots go to .citeflow/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from services.bench.reader_corpus import formatted
from tests.services.gateway.pages.site import (
    SCREENSHOTS,
    results_store,
    traps_fired,
    violations,
    wait_until,
)

ROOT = "document.querySelector('citeflow-answer').shadowRoot"
SENTENCE = ("The Eiffel Tower stands in Paris, was finished in 1889 by Gustave Eiffel and is "
            "330 metres tall [1].")
ANSWER = {
    "answer_id": "set-1",
    "text": SENTENCE + " Der Zug fährt nach Köln und 列车开往北京 [2].",
    "sources": [
        {"index": 1, "kind": "web", "title": "Eiffel", "url": "https://example.org/eiffel",
         "chunks": [{"text": "The Eiffel Tower stands in Paris. Many visitors come each year."},
                    {"text": "It was finished in 1889. It is 330 metres tall."}]},
        {"index": 2, "kind": "web", "title": "Bahn", "url": "https://example.org/bahn",
         "chunks": [{"text": "Der Zug hält in Bonn."}]}],
    "metadata": {"tenant": "demo", "model": "test-model"},
}
# The words the second citation's source lacks as the answer writes them, in three scripts
# (the older `missing` list holds terms: a stem that the answer never spells so).
WORDS = ["fährt", "Köln", "北京", "القاهرة"]


def _answer() -> bytes:
    data = orjson.loads(formatted(ANSWER))
    text = data["text"] + ""
    support = data["citations"][1]["support"]
    support["missing"] = ["fahrt", "koln", "北"]
    support["missing_words"] = [
        {"text": w, "start": text.find(w), "end": text.find(w) + len(w)} for w in WORDS[:3]
    ] + [{"text": WORDS[3], "start": 0, "end": len(WORDS[3])}]
    return orjson.dumps(data)


# The third claim's passage made two sentences, the second claim's inside it.
OVERLAPPING = "It was finished in 1889. It is 330 metres tall."


def _overlapping() -> bytes:
    data = orjson.loads(formatted({**ANSWER, "answer_id": "set-2"}))
    selector = data["citations"][0]["support"]["atoms"][2]["evidence"]["locator"]["selector"]
    selector.update(exact=OVERLAPPING, prefix="", suffix="")
    return orjson.dumps(data)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from services.bench.reader_site import reader_site

    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, [], [_answer(), _overlapping()], tmp_path_factory.mktemp("site")) as running:
        yield running


def _ready(driver: Any, site: Any, answer: str = "set-1") -> None:
    driver.get(site.viewer_url(answer))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               in ("ready", "error"))


def _open_first_chip(driver: Any) -> None:
    driver.execute_script(f"{ROOT}.querySelector('.panel').dataset.state = 'clicked';")
    driver.execute_script(f"{ROOT}.querySelectorAll('.answer a.citation')[0].click();")
    wait_until(driver, lambda d: d.execute_script(
        f"return {ROOT}.querySelector('.panel').dataset.state === 'ready';"))


def _current(driver: Any) -> list[str]:
    """The text of the passages set apart, and the claim in the list set apart."""
    return list(driver.execute_script(f"""
        return Array.from({ROOT}.querySelectorAll('[data-citeflow-current]'))
          .map((n) => n.tagName.toLowerCase() + ':' + n.textContent);"""))


def test_every_passage_of_the_set_is_highlighted_and_the_pointed_one_set_apart(
        site: Any, driver: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    _ready(driver, site)
    _open_first_chip(driver)
    atoms = orjson.loads(_answer())["citations"][0]["support"]["atoms"]
    assert len(atoms) == 3
    marks = driver.execute_script(f"""
        return Array.from({ROOT}.querySelectorAll('.panel-body mark[data-citeflow-atoms]'))
          .map((m) => [m.dataset.citeflowAtoms, m.textContent]);""")
    assert sorted(text for _, text in marks) == sorted(
        atom["evidence"]["quote"] for atom in atoms)  # one passage per atom, across chunks
    claims = driver.execute_script(
        f"return Array.from({ROOT}.querySelectorAll('.evidence li bdi')).map((b) => b.textContent);")
    assert claims == [atom["text"] for atom in atoms]
    assert _current(driver) == []
    # the pointer on a claim of the list
    item = driver.execute_script(f"return {ROOT}.querySelector('.evidence li[data-atom=\"1\"]');")
    ActionChains(driver).move_to_element(item).perform()
    wait_until(driver, lambda d: _current(d))
    assert _current(driver) == ["li:" + atoms[1]["text"] + atoms[1]["verdict"],
                                "mark:" + atoms[1]["evidence"]["quote"]]
    driver.save_screenshot(str(SCREENSHOTS / "viewer-evidence-set.png"))
    # the pointer on the claim's own words in the answer
    x, y = driver.execute_script(f"""
        const answer = document.querySelector('citeflow-answer');
        const r = answer.atomRanges[2].getClientRects()[0];
        return [r.left + r.width / 2, r.top + r.height / 2];""")
    ActionChains(driver).move_to_element(driver.find_element("tag name", "h1")).perform()
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    action = ActionBuilder(driver)
    action.pointer_action.move_to_location(int(x), int(y))
    action.perform()
    wait_until(driver, lambda d: d.find_element("id", "citeflow-answer")
               .get_attribute("data-atom") == "2")
    assert "mark:" + atoms[2]["evidence"]["quote"] in _current(driver)
    # keyboard focus on a claim
    driver.execute_script(f"{ROOT}.querySelector('.evidence li[data-atom=\"0\"]').focus();")
    assert "mark:" + atoms[0]["evidence"]["quote"] in _current(driver)
    # a context that ends a sentence has no ellipsis after its full stop
    blocks = driver.execute_script(
        f"return Array.from({ROOT}.querySelectorAll('.passage-text')).map((b) => b.textContent);")
    assert any(b.endswith("each year.") for b in blocks) and not any(".…" in b for b in blocks)
    assert traps_fired(driver) == [] and violations(driver) == []


def test_overlapping_passages_of_the_set_are_shown_once(site: Any, driver: Any) -> None:
    _ready(driver, site, "set-2")
    _open_first_chip(driver)
    blocks = driver.execute_script(f"""
        return Array.from({ROOT}.querySelectorAll('.panel-body .passage-text')).map((b) =>
          Array.from(b.querySelectorAll('mark')).map((m) => [m.dataset.citeflowAtoms || '',
            m.textContent]));""")
    assert blocks == [[["0", "The Eiffel Tower stands in Paris."]],
                      [["1 2", "It was finished in 1889."], ["2", " It is 330 metres tall."]]]
    # each claim's own stretch is set apart: the second claim's the first sentence only
    driver.execute_script(f"{ROOT}.querySelector('.evidence li[data-atom=\"1\"]').focus();")
    assert [text for text in _current(driver) if text.startswith("mark:")] == [
        "mark:It was finished in 1889."]
    driver.execute_script(f"{ROOT}.querySelector('.evidence li[data-atom=\"2\"]').focus();")
    assert "".join(text[5:] for text in _current(driver) if text.startswith("mark:")) == OVERLAPPING


def test_the_card_lists_the_answers_own_words_in_every_script(site: Any, driver: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    _ready(driver, site)
    chip = driver.execute_script(f"return {ROOT}.querySelectorAll('.answer a.citation')[1];")
    ActionChains(driver).move_to_element(chip).perform()
    wait_until(driver, lambda d: d.execute_script(
        f"return !{ROOT}.querySelector('.card').hidden;"))
    listed = driver.execute_script(
        f"return Array.from({ROOT}.querySelectorAll('.card .missing bdi')).map((b) => b.textContent);")
    assert listed == WORDS
    driver.save_screenshot(str(SCREENSHOTS / "viewer-card-missing-words.png"))
    # the HTML rendering's unsupported words are underlined in the text itself
    marked = driver.execute_script(f"""
        return Array.from({ROOT}.querySelectorAll('.answer .cf-missing')).map((m) =>
          [m.textContent, getComputedStyle(m).textDecorationStyle]);""")
    assert ["Gustave", "dotted"] in marked


@pytest.fixture(scope="module")
def book_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from services.bench.reader_corpus import _chunks, _source, load_documents
    from services.bench.reader_site import reader_site
    from tests.conftest import CORPUS_DIR

    documents = [d for d in load_documents(CORPUS_DIR) if d.doc_id == "moby-dick"]
    answer = {"answer_id": "epub-set", "text": (
        "Ishmael goes to sea as a simple sailor, and they make a point of paying him for his "
        "trouble [1]."), "sources": [_source(1, documents[0], _chunks(documents[0], [6, 7]))],
        "metadata": {"model": "m", "tenant": "demo"}}
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, documents, [formatted(answer)], tmp_path_factory.mktemp("site")) as running:
        yield running


@pytest.mark.corpus
def test_an_epub_chapter_marks_every_passage_of_the_set(book_site: Any, driver: Any) -> None:
    driver.get(book_site.viewer_url("epub-set"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               in ("ready", "error"))
    _open_first_chip(driver)
    marked = driver.execute_script(f"""
        const found = {{}};
        for (const m of {ROOT}.querySelectorAll('.chapter mark[data-citeflow-atoms]')) {{
          found[m.dataset.citeflowAtoms] = (found[m.dataset.citeflowAtoms] || '') + m.textContent;
        }}
        return found;""")
    assert set(marked) == {"0", "1"}  # two passages, two paragraphs of the chapter
    assert marked["0"].startswith("No, when I go to sea, I go as a simple sailor")
    assert "they make a point of paying me for my trouble" in marked["1"]
    driver.execute_script(f"{ROOT}.querySelector('.evidence li[data-atom=\"0\"]').focus();")
    current = [text for text in _current(driver) if text.startswith("mark:")]
    assert current and "".join(current).startswith("mark:No, when I go to sea")
    driver.save_screenshot(str(SCREENSHOTS / "viewer-evidence-set-epub.png"))
    assert traps_fired(driver) == []
