"""Corrupted documents: ingest and the reader views either work or refuse, never crash."""

from __future__ import annotations

import random

import pytest

from services.ingest.documents.chapter import chapter_view
from services.ingest.documents.epub import open_epub
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.limits import DEFAULT_LIMITS
from services.ingest.documents.page import page_view
from services.ingest.documents.rejection import DocumentRejection
from tests.services.ingest.documents.builders import (
    Chapter,
    EpubSpec,
    build_epub,
    build_pdf,
    xhtml,
)

EPUB = build_epub(EpubSpec([
    Chapter("a.xhtml", xhtml("<h1>A</h1><p>First <img src='i.png'/> chapter.</p>"), "A"),
    Chapter("b.xhtml", xhtml("<p>Second <a href='a.xhtml#x'>link</a>.</p>"), "B"),
]))
PDF = build_pdf([["Some text on a page.", "More text-", "here."], ["Page two."]])


def _mutations(data: bytes, seed: int) -> bytes:
    rng = random.Random(seed)
    mutated = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        position = rng.randrange(len(mutated))
        choice = rng.random()
        if choice < 0.6:
            mutated[position] = rng.randrange(256)
        elif choice < 0.8:
            del mutated[position:position + rng.randint(1, 64)]
        else:
            mutated[position:position] = bytes(rng.randrange(256) for _ in range(8))
    return bytes(mutated)


@pytest.mark.parametrize("seed", range(150))
def test_corrupted_epub(seed: int) -> None:
    data = _mutations(EPUB, seed)
    try:
        ingest_document(data, "fuzz")
        package = open_epub(data, DEFAULT_LIMITS)
    except DocumentRejection:
        return
    for entry in package.spine:
        try:
            chapter_view(package, entry.href, "fuzz")
        except DocumentRejection:
            pass


@pytest.mark.parametrize("seed", range(100))
def test_corrupted_pdf(seed: int) -> None:
    data = _mutations(PDF, seed)
    try:
        ingest_document(data, "fuzz")
        page_view(data, 1, "text on a page")
    except DocumentRejection:
        pass
