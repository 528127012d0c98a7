"""Answers over the corpus documents for the reader's browser tests and `bench reader`.

Each document (moby-dick.epub, tracemonkey.pdf, copy_paste_ligatures.pdf, the scanned
c02-22.pdf) is ingested for real; its chunks (with href/page and offsets, as upstream would
index them) become a source, and the answer quotes passages of those chunks (verbatim units
with spans and locators) and adds derived sentences (supporting passages). A plain-text and a
web source complete the kinds. The answers go through the real five stages in-process.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from schemas.documents import ChunkingOptions, DocumentIngested
from schemas.formatted import AnswerFormatted
from services.ingest.documents.ingest import ingest_document
from services.pipeline import process_answer

# (doc_id, corpus path, format, title)
DOCUMENTS = (
    ("moby-dick", "epub/moby-dick.epub", "epub", "Moby-Dick; or, The Whale"),
    ("tracemonkey", "pdf/tracemonkey.pdf", "pdf", "Trace-based Just-in-Time Type Specialization"),
    ("ligatures", "pdf/copy_paste_ligatures.pdf", "pdf", "Ligature test page"),
    ("huck-scan", "pdf/c02-22.pdf", "pdf", "Adventures of Huckleberry Finn, p. 22 (scan)"),
)
# What an OCR of the scanned page would have given upstream (the PDF has no text layer).
SCAN_TEXT = ("We went tiptoeing along a path amongst the trees back towards the end of the "
             "widow's garden, stooping down so as the branches wouldn't scrape our heads.")
TEXT_SOURCE = ("Citation quality is measured by recall and precision. A citation is supported "
               "when the cited passage entails the claim it is attached to, and a reader "
               "should be able to see that passage with one click.")
WEB_SOURCE = ("The scroll-to-text fragment lets a link point at a passage: the browser "
              "scrolls to the first match of the text directive and highlights it.")


@dataclass(frozen=True)
class CorpusDocument:
    doc_id: str
    fmt: str
    title: str
    data: bytes
    ingested: DocumentIngested

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def load_documents(corpus: Path) -> list[CorpusDocument]:
    """The corpus documents, ingested with chunk text (as upstream's index holds them)."""
    options = ChunkingOptions(include_chunk_text=True)
    documents = []
    for doc_id, path, fmt, title in DOCUMENTS:
        data = (corpus / path).read_bytes()
        ingested = ingest_document(data, doc_id, options=options)
        documents.append(CorpusDocument(doc_id, fmt, title, data, ingested))
    return documents


def _chunks(document: CorpusDocument, sections: list[int]) -> list[dict[str, Any]]:
    return [
        {"chunk_id": c.chunk_id, "section_id": c.section_id, "href": c.href, "page": c.page,
         "start_char": c.start_char, "text": c.text}
        for c in document.ingested.chunks
        if int(c.section_id.rsplit(":", 1)[1]) in sections
    ]


def _quotes(chunks: list[dict[str, Any]], count: int, words: int = 9) -> list[str]:
    """`count` quotes of `words` words, from the middle of chunks spread over the source."""
    step = max(1, len(chunks) // count)
    found: list[str] = []
    for chunk in chunks[::step]:
        tokens = chunk["text"].split()
        if len(tokens) < words * 2:
            continue
        middle = len(tokens) // 2
        quote = " ".join(tokens[middle: middle + words]).strip(" ,;:.\"'“”‘’()[]")
        if '"' not in quote and quote:
            found.append(quote)
        if len(found) == count:
            break
    return found


def _source(index: int, document: CorpusDocument, chunks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"index": index, "kind": "document", "doc_id": document.doc_id,
            "title": document.title, "format": document.fmt, "score": 10.0 - index,
            "chunks": chunks}


def corpus_answers(documents: list[CorpusDocument]) -> list[dict[str, Any]]:
    """Three answers (`answer.submitted` data): EPUB, PDF (with ligatures and the scan), and
    text plus web."""
    by_id = {d.doc_id: d for d in documents}
    moby = _chunks(by_id["moby-dick"], [6, 7])
    epub_quotes = _quotes(moby, 6)
    epub_text = " ".join(
        f'Melville writes "{quote}" [1].' for quote in epub_quotes
    ) + " The narrator treats the sea as a cure for melancholy [1]."
    trace = _chunks(by_id["tracemonkey"], list(range(14)))
    pdf_quotes = _quotes(trace, 8)
    ligatures = _chunks(by_id["ligatures"], [0])
    scan = [{"chunk_id": "huck-scan:ocr", "section_id": "huck-scan:0", "page": 1,
             "start_char": 0, "text": SCAN_TEXT}]
    pdf_text = " ".join(f'The paper states "{quote}" [1].' for quote in pdf_quotes) + (
        ' The test page prints "' + ligatures[0]["text"].strip() + '" [2].'
        ' Huck remembers "stooping down so as the branches wouldn\'t scrape our heads" [3].'
        " Tracing compilers specialise hot loops by type [1][4].")
    other_text = (
        'Quality work says that "a reader should be able to see that passage with one click" '
        '[1]. A browser "scrolls to the first match of the text directive" [2]. '
        "Both ideas meet in a reader that lands on the quoted passage [1][2].")
    return [
        {"answer_id": "corpus-epub", "query": "Why does Ishmael go to sea?",
         "text": epub_text, "sources": [_source(1, by_id["moby-dick"], moby)],
         "metadata": {"model": "bench-model", "tenant": "demo"}},
        {"answer_id": "corpus-pdf", "query": "How does TraceMonkey work?", "text": pdf_text,
         "sources": [_source(1, by_id["tracemonkey"], trace),
                     _source(2, by_id["ligatures"], ligatures),
                     _source(3, by_id["huck-scan"], scan)],
         "metadata": {"model": "bench-model", "tenant": "demo"}},
        {"answer_id": "corpus-text-web", "query": "What makes a citation useful?",
         "text": other_text, "sources": [
             {"index": 1, "kind": "document", "source_id": "notes", "title": "Notes on "
              "citation quality", "format": "text", "chunks": [
                  {"chunk_id": "notes:0", "section_id": "notes", "start_char": 0,
                   "text": TEXT_SOURCE}]},
             {"index": 2, "kind": "web", "title": "Text fragments",
              "url": "https://wicg.github.io/scroll-to-text-fragment/", "chunks": [
                  {"chunk_id": "web:0", "text": WEB_SOURCE}]}],
         "metadata": {"model": "bench-model", "tenant": "demo"}},
    ]


def formatted(answer: dict[str, Any]) -> bytes:
    """The `answer.formatted` data of one answer, through the five stages in-process."""
    result = process_answer(orjson.dumps(answer), event_id=f"bench-{answer['answer_id']}")
    if isinstance(result, AnswerFormatted):
        return result.model_dump_json().encode()
    raise RuntimeError(f"answer {answer['answer_id']} did not format: {result}")
