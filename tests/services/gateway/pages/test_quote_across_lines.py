"""A quote whose words the source's markup wraps over lines (`a large\\ndish of tarts` in
chapter XI of Alice's EPUB: the chapter's text has line feeds where the sentence has
spaces) is still set apart inside the highlighted passage, in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from schemas.documents import ChunkingOptions
from services.bench.reader_corpus import CorpusDocument, formatted
from services.ingest.documents.ingest import ingest_document
from tests.conftest import CORPUS_DIR
from tests.services.gateway.pages.site import results_store, traps_fired, wait_until

ROOT = "document.querySelector('citeflow-answer').shadowRoot"
QUOTE = "a large dish of tarts upon it"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from services.bench.reader_site import reader_site

    data = (CORPUS_DIR / "epub" / "alice-epub2.epub").read_bytes()
    ingested = ingest_document(data, "alice", options=ChunkingOptions(include_chunk_text=True))
    alice = CorpusDocument("alice", "epub", "Alice's Adventures in Wonderland", data, ingested)
    chunks = [{"chunk_id": c.chunk_id, "section_id": c.section_id, "href": c.href,
               "start_char": c.start_char, "text": c.text}
              for c in ingested.chunks if c.href == "chapter11.xhtml"]
    assert any(QUOTE in c["text"] for c in chunks)
    answer = {"answer_id": "tarts", "text": f'In the court stood a table with "{QUOTE}" [1].',
              "sources": [{"index": 1, "kind": "document", "doc_id": "alice",
                           "title": alice.title, "format": "epub", "chunks": chunks}],
              "metadata": {"model": "test-model", "tenant": "demo"}}
    with results_store(tmp_path_factory.mktemp("store")) as store, reader_site(
            store, [alice], [formatted(answer)], tmp_path_factory.mktemp("site")) as running:
        yield running


def test_a_quote_wrapped_over_lines_is_set_apart(site: Any, driver: Any) -> None:
    driver.get(site.viewer_url("tarts"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               in ("ready", "error"))
    driver.execute_script(f"{ROOT}.querySelector('.answer a.citation').click();")
    wait_until(driver, lambda d: d.execute_script(
        f"return {ROOT}.querySelector('.panel').dataset.state === 'ready';"))
    found = driver.execute_script(f"""
        const r = {ROOT};
        const marks = r.querySelectorAll('.panel-body mark[data-citeflow-highlight]');
        const quotes = r.querySelectorAll('.panel-body mark[data-citeflow-quote]');
        return {{why: r.querySelector('.panel-why').textContent,
                passage: Array.from(marks).map((m) => m.textContent).join(''),
                quote: Array.from(quotes).map((m) => m.textContent).join('')}};""")
    assert "word for word" in found["why"]
    assert "large\ndish" in found["passage"]  # the chapter's own line break is kept
    assert " ".join(found["quote"].split()) == QUOTE
    assert traps_fired(driver) == []
