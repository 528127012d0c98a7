"""A quote whose words the source's markup wraps over lines (`a large\\ndish of tarts` in
chapter XI of Alice's EPUB: the chapter's text has line feeds where the sentence has
spaces) is still set apart inside the highlighted passage, in headless Chromium.

The chapter view is the reader's own (`reader_work.chapter_job`: the EPUB sanitised, the
cited passage marked), made in this process and handed to the component through its
`fetcher`: the gateway's reader processes run on idle CPU only, so on a saturated machine
they may never get to it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from schemas.documents import ChunkingOptions
from services.bench.reader_corpus import formatted
from services.gateway.documents.reader_work import chapter_job
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.store import LocalDocumentStore
from tests.conftest import CORPUS_DIR
from tests.services.gateway.pages.site import answers_site, traps_fired, wait_until

QUOTE = "a large dish of tarts upon it"
EPUB = CORPUS_DIR / "epub" / "alice-epub2.epub"


@pytest.fixture(scope="module")
def result() -> dict[str, Any]:
    ingested = ingest_document(EPUB.read_bytes(), "alice",
                               options=ChunkingOptions(include_chunk_text=True))
    chunks = [{"chunk_id": c.chunk_id, "section_id": c.section_id, "href": c.href,
               "start_char": c.start_char, "text": c.text}
              for c in ingested.chunks if c.href == "chapter11.xhtml"]
    assert any(QUOTE in c["text"] for c in chunks)
    answer = {"answer_id": "tarts", "text": f'In the court stood a table with "{QUOTE}" [1].',
              "sources": [{"index": 1, "kind": "document", "doc_id": "alice",
                           "title": "Alice's Adventures in Wonderland", "format": "epub",
                           "chunks": chunks}],
              "metadata": {"model": "test-model", "tenant": "demo"}}
    return dict(orjson.loads(formatted(answer)))


@pytest.fixture(scope="module")
def chapter(result: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The reader's view of the cited chapter with the citation's passage marked."""
    root = tmp_path_factory.mktemp("documents")
    data = EPUB.read_bytes()
    uri = LocalDocumentStore(root).put(data, "epub")
    (link,) = [link for link in result["links"] if link.get("locator")]
    selector = link["locator"]["selector"]
    view = chapter_job(str(root), uri, hashlib.sha256(data).hexdigest(), "alice",
                       link["locator"]["href"], (selector["exact"], selector.get("prefix") or "",
                                                 selector.get("suffix") or ""))
    assert view["highlight"]["found"] and "large\ndish" in view["html"]
    return view


@pytest.fixture(scope="module")
def site(result: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with answers_site(tmp_path_factory, [orjson.dumps(result)]) as running:
        yield running


def test_a_quote_wrapped_over_lines_is_set_apart(site: Any, result: dict[str, Any],
                                                 chapter: dict[str, Any], driver: Any) -> None:
    driver.get(site.viewer_url("tarts"))
    wait_until(driver, lambda d: d.find_element("id", "viewer").get_attribute("data-state")
               == "ready")
    driver.execute_script("""
        const [data, view] = arguments;
        const fresh = document.createElement('citeflow-answer');
        fresh.id = 'local';
        fresh.fetcher = async (path) => new Response(JSON.stringify(view),
          {headers: {'Content-Type': 'application/json'}});
        document.getElementById('citeflow-answer').replaceWith(fresh);
        fresh.data = data;
        fresh.shadowRoot.querySelector('.answer a.citation').click();""", result, chapter)
    root = "document.getElementById('local').shadowRoot"
    wait_until(driver, lambda d: d.execute_script(
        f"return {root}.querySelector('.panel').dataset.state === 'ready';"))
    found = driver.execute_script(f"""
        const r = {root};
        const marks = r.querySelectorAll('.panel-body .chapter mark[data-citeflow-highlight]');
        const quotes = r.querySelectorAll('.panel-body mark[data-citeflow-quote]');
        return {{why: r.querySelector('.panel-why').textContent,
                passage: Array.from(marks).map((m) => m.textContent).join(''),
                quote: Array.from(quotes).map((m) => m.textContent).join('')}};""")
    assert "word for word" in found["why"]
    assert "large\ndish" in found["passage"]  # the chapter's own line break is kept
    assert " ".join(found["quote"].split()) == QUOTE
    assert traps_fired(driver) == []
