"""The demo answer's documents, built from its own sources: they ingest, and every EPUB and
PDF locator of the demo's formatted result (links and spans) lands on a real highlight."""

from __future__ import annotations

from pathlib import Path

import orjson
import pymupdf

from services.bench.reader_corpus import formatted
from services.ingest.documents.chapter import epub_chapter
from services.ingest.documents.chapter_marks import prepare_chapter
from services.ingest.documents.demo import demo_documents
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.pdf_locate import PdfIndex, locate

DEMO = Path(__file__).resolve().parents[4] / "services" / "examples" / "demo_answer.json"


def test_every_demo_locator_lands_on_a_highlight():
    answer = orjson.loads(DEMO.read_bytes())
    documents = {d.doc_id: d for d in demo_documents(answer)}
    assert {(d.doc_id, d.fmt) for d in documents.values()} == {
        ("moby-dick", "epub"), ("moby-dick-study", "pdf")}
    for document in documents.values():
        ingested = ingest_document(document.data, document.doc_id)
        assert ingested.sections and not [p for p in ingested.problems if "no_text" in p]
    result = orjson.loads(formatted(answer))
    locators = [(link["doc_id"], link["locator"]) for link in result["links"]]
    locators += [(span["doc_id"], span["locator"]) for unit in result["answer_units"]["units"]
                 for span in unit["source_spans"]]
    checked = set()
    for doc_id, locator in locators:
        selector = locator["selector"]
        quote = (selector["exact"], selector["prefix"], selector["suffix"])
        if locator["type"] == "epub_text":
            view = epub_chapter(documents[doc_id].data, locator["href"], doc_id)
            _, outcome = prepare_chapter(view["html"], *quote)
            assert outcome is not None and outcome["found"], locator
        elif locator["type"] == "pdf_text":
            index = PdfIndex(pymupdf.open(stream=documents[doc_id].data))
            view = locate(index, locator["page"], *quote)
            assert view["found"] and not view["moved"], locator
        else:
            continue
        checked.add(locator["type"])
    assert checked == {"epub_text", "pdf_text"}
