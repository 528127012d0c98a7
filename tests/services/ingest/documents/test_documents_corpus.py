"""Conformance over every corpus EPUB and PDF (tests/corpus)."""

from __future__ import annotations

import json
import re
import zipfile
from functools import cache
from typing import Any

import bleach
import html5lib
import pytest

from schemas.documents import ChunkingOptions, DocumentIngested
from services.ingest.documents.chapter import chapter_view
from services.ingest.documents.epub import open_epub
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.limits import DEFAULT_LIMITS
from services.ingest.documents.page import page_view
from services.ingest.documents.pdf_text import LIGATURES
from services.ingest.documents.problems import problem_code
from services.ingest.documents.sanitize import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_PROTOCOLS,
    ALLOWED_TAGS,
)
from tests.conftest import corpus_path
from tests.services.ingest.documents.test_documents_chapter import _executable
from tests.services.ingest.documents.test_documents_epub import assert_chunks_are_slices

pytestmark = pytest.mark.corpus

EPUB_FILES = ["alice-epub2.epub", "childrens-literature.epub", "epub30-spec.epub",
              "moby-dick.epub", "regime-anticancer-arabic.epub", "trees.epub"]
PDF_FILES = ["ArabicCIDTrueType.pdf", "bug1513120_reduced.pdf", "c02-22.pdf",
             "copy_paste_ligatures.pdf", "issue16538.pdf", "issue9655_reduced.pdf",
             "rotation.pdf", "tracemonkey.pdf"]
OPTIONS = ChunkingOptions(chunk_size=800, chunk_overlap=80, include_chunk_text=True)
MARKERS = re.compile("[\ufdd0-\ufdd2]")
ARABIC = re.compile("[\u0600-\u06ff]")


def _manifest(kind: str) -> dict[str, dict[str, Any]]:
    data = json.loads(corpus_path(kind, f"{kind}_manifest.json").read_text("utf-8"))
    entries = data["files"] if isinstance(data, dict) else data
    return {entry["file"]: entry for entry in entries}


@cache
def _ingest(kind: str, name: str) -> DocumentIngested:
    return ingest_document(corpus_path(kind, name).read_bytes(), name.rsplit(".", 1)[0],
                           options=OPTIONS)


def test_every_corpus_file_is_covered() -> None:
    assert sorted(p.name for p in corpus_path("epub").glob("*.epub")) == sorted(EPUB_FILES)
    assert sorted(p.name for p in corpus_path("pdf").glob("*.pdf")) == sorted(PDF_FILES)


@pytest.mark.parametrize("name", EPUB_FILES)
def test_epub_sections_offsets_and_text(name: str) -> None:
    entry = _manifest("epub")[name]
    ingested = _ingest("epub", name)
    assert len(ingested.sections) == entry["spine_items"]
    assert ingested.title == entry["title"]
    names = set(zipfile.ZipFile(corpus_path("epub", name)).namelist())
    assert all(section.href in names for section in ingested.sections)
    assert_chunks_are_slices(ingested)
    covered = {chunk.section_id for chunk in ingested.chunks}
    assert covered == {s.section_id for s in ingested.sections if s.text}
    for section in ingested.sections:
        assert not MARKERS.search(section.text)
        assert "\n\n\n" not in section.text and section.text == section.text.strip()
    assert sum(len(s.text) for s in ingested.sections) > 1000
    assert not [p for p in ingested.problems if problem_code(p) != "not_well_formed"]


@pytest.mark.parametrize("name", EPUB_FILES)
def test_epub_chapters_are_sanitised(name: str) -> None:
    package = open_epub(corpus_path("epub", name).read_bytes(), DEFAULT_LIMITS)
    for entry in package.spine:
        view = chapter_view(package, entry.href, "corpus")
        html = view["html"]
        assert view["status"] == "ok" and view["href"] == entry.href
        assert "<script" not in html.lower() and _executable(html) == []
        assert bleach.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES,
                            protocols=ALLOWED_PROTOCOLS, strip=True) == html
        tree = html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False)
        for img in tree.iter("img"):
            assert img.get("src").startswith("/v1/documents/corpus/resources/")


def test_alice_resolves_its_own_entities_and_ncx_titles() -> None:
    ingested = _ingest("epub", "alice-epub2.epub")
    text = "\n".join(s.text for s in ingested.sections)
    assert "\u201c" in text and "\u2014" in text
    assert not re.search(r"&[A-Za-z]+;", text)
    assert ingested.sections[1].title == "I. Down the Rabbit-Hole"
    assert ingested.sections[1].text.startswith("Chapter I\n\nDown the Rabbit-Hole\n\nAlice was")


def test_moby_dick_titles_and_paragraphs() -> None:
    ingested = _ingest("epub", "moby-dick.epub")
    loomings = next(s for s in ingested.sections if s.href == "OPS/chapter_001.xhtml")
    assert loomings.title == "Chapter 1. Loomings."
    assert loomings.text.startswith("Chapter 1. Loomings.\n\nCall me Ishmael.")
    assert [s.linear for s in ingested.sections[:2]] == [False, True]


def test_arabic_epub_keeps_right_to_left_text() -> None:
    ingested = _ingest("epub", "regime-anticancer-arabic.epub")
    assert len(ARABIC.findall(ingested.sections[2].text)) > 10_000
    package = open_epub(corpus_path("epub", "regime-anticancer-arabic.epub").read_bytes(),
                        DEFAULT_LIMITS)
    html = chapter_view(package, "EPUB/Content/C_content.xhtml", "d")["html"]
    assert 'dir="rtl"' in html and ARABIC.search(html)


def test_trees_scripted_chapters_come_out_without_script() -> None:
    data = corpus_path("epub", "trees.epub").read_bytes()
    archive = zipfile.ZipFile(corpus_path("epub", "trees.epub"))
    assert b"<script" in archive.read("EPUB/c1.xhtml")
    package = open_epub(data, DEFAULT_LIMITS)
    for href in ("EPUB/c1.xhtml", "EPUB/c2.xhtml"):
        html = chapter_view(package, href, "trees")["html"]
        assert "script" not in html.lower() and "jquery" not in html.lower()
        assert "canvas" not in html.lower()
    text = "\n".join(s.text for s in _ingest("epub", "trees.epub").sections)
    assert "jquery" not in text.lower() and "#canvas" not in text


@pytest.mark.parametrize("name", PDF_FILES)
def test_pdf_pages_offsets_and_ligatures(name: str) -> None:
    entry = _manifest("pdf")[name]
    ingested = _ingest("pdf", name)
    assert len(ingested.sections) == entry["page_count"]
    assert [s.page for s in ingested.sections] == list(range(1, entry["page_count"] + 1))
    assert sum(s.has_text_layer for s in ingested.sections) == entry["pages_with_text"]
    for page in entry["pages"]:
        if "page" in page:
            section = ingested.sections[page["page"] - 1]
            assert section.has_text_layer == (page["text_chars"] > 0)
    assert_chunks_are_slices(ingested)
    for section in ingested.sections:
        assert not any(ligature in section.text for ligature in LIGATURES)
        assert "\u00ad" not in section.text


def test_scanned_page_has_no_text_layer() -> None:
    ingested = _ingest("pdf", "c02-22.pdf")
    assert [s.has_text_layer for s in ingested.sections] == [False]
    assert ingested.chunks == [] and problem_code(ingested.problems[0]) == "no_text_layer"
    view = page_view(corpus_path("pdf", "c02-22.pdf").read_bytes(), 1, "Tom Sawyer")
    assert (view["found"], view["has_text_layer"]) == (False, False)


def test_all_seven_ligatures_are_expanded() -> None:
    [section] = _ingest("pdf", "copy_paste_ligatures.pdf").sections
    assert section.text == "abcdeffffiflffifflststghijklmno"


def test_tracemonkey_hyphenation_and_ligatures() -> None:
    pages = [s.text for s in _ingest("pdf", "tracemonkey.pdf").sections]
    text = "\n".join(pages)
    assert "Trace-Monkey" in pages[1]  # a real hyphen at a line end stays
    assert "com-\npile" not in pages[0] and "compile than statically typed" in pages[0]
    assert "difficult" in pages[0] and "efficient" in text
    assert len(re.findall(r"[a-z]-\n[a-z]", text)) <= 2
    view = page_view(corpus_path("pdf", "tracemonkey.pdf").read_bytes(), 1,
                     "are more difficult to compile than statically typed")
    # The quote runs over a line end: its highlight covers exactly two lines (a line may be
    # cut into several rectangles where the text changes span, depending on the MuPDF build).
    assert view["found"] and len({top for _, top, _, _ in view["rects"]}) == 2


def test_arabic_and_japanese_pdfs_keep_their_text() -> None:
    arabic = _ingest("pdf", "ArabicCIDTrueType.pdf").sections[0].text
    assert len(ARABIC.findall(arabic)) > 40
    japanese = _ingest("pdf", "issue16538.pdf").sections[0].text
    assert "標準マーケットモデル" in japanese and "リスク中立確率" in japanese


def test_rotated_pdf_page() -> None:
    sections = _ingest("pdf", "rotation.pdf").sections
    assert "landscape layout" in sections[1].text
    view = page_view(corpus_path("pdf", "rotation.pdf").read_bytes(), 2, "Second line here")
    assert view["found"] and view["rotation"] == 90
    [[x0, y0, x1, y1]] = view["rects"]
    assert 0 <= x0 < x1 <= view["width"] and 0 <= y0 < y1 <= view["height"]
