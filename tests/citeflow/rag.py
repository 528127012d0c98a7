"""RAG material for the framework tests: passages of the corpus's real documents (the
Moby-Dick EPUB, the TraceMonkey PDF) with the metadata loaders give, and the answer a fake
model writes over whatever the retriever returned (a quote of each passage, cited)."""

from __future__ import annotations

from functools import cache
from typing import Any

from services.bench.reader_corpus import load_documents
from tests.conftest import CORPUS_DIR

DOC_IDS = ("moby-dick", "tracemonkey")
QUESTION = "What do the usher and the trace compiler have in common?"


@cache
def passages() -> list[tuple[str, dict[str, Any]]]:
    """(text, metadata) of three long passages of each document."""
    found = []
    for document in load_documents(CORPUS_DIR):
        if document.doc_id not in DOC_IDS:
            continue
        chunks = [c for c in document.ingested.chunks if len(c.text.split()) > 60][:3]
        for chunk in chunks:
            metadata: dict[str, Any] = {
                "source": f"/data/{document.doc_id}.{document.fmt}", "title": document.title,
                "doc_id": document.doc_id, "format": document.fmt,
                "chunk_id": chunk.chunk_id, "section_id": chunk.section_id,
                "start_index": chunk.start_char}
            if chunk.href:
                metadata["href"] = chunk.href
            if chunk.page:
                metadata["page"] = chunk.page - 1  # LangChain's PDF loaders count from 0
            found.append((chunk.text, metadata))
    return found


def quote(text: str) -> str:
    return " ".join(text.split()[6:16])


def answer_over(texts: list[str]) -> str:
    """What the fake model answers over the retrieved passages, in their order."""
    return " ".join(f'One source says "{quote(t)}" [{n}].' for n, t in enumerate(texts, 1))


def check_linked(result: Any, count: int) -> None:
    """A formatted result whose every citation is valid and linked to its passage."""
    from citeflow.schemas.answer_formatted import AnswerFormatted

    assert isinstance(result, AnswerFormatted), result
    assert result.renderings.html and len(result.citations) == count
    assert all(c.valid for c in result.citations), [c.problem for c in result.citations]
    linked = {(link.citation_id, link.sentence_index) for link in result.links if link.locator}
    assert {(c.id, c.sentence_index) for c in result.citations} <= linked
