"""PDF ingest on generated files and the page-text clean-up rules."""

from __future__ import annotations

import pytest

from schemas.documents import ChunkingOptions
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.pdf_text import clean_page_text
from tests.services.ingest.documents.builders import build_pdf
from tests.services.ingest.documents.test_documents_epub import assert_chunks_are_slices


def test_pages_are_sections_with_one_based_page_numbers() -> None:
    data = build_pdf([["First page text."], ["Second page text."], ["Third."]])
    ingested = ingest_document(data, "paper")
    assert ingested.format == "pdf"
    assert [(s.index, s.page, s.section_id) for s in ingested.sections] == [
        (0, 1, "paper:0"), (1, 2, "paper:1"), (2, 3, "paper:2")]
    assert [s.text for s in ingested.sections] == ["First page text.", "Second page text.", "Third."]
    assert all(s.has_text_layer and s.href is None for s in ingested.sections)
    assert [c.page for c in ingested.chunks] == [1, 2, 3]


def test_image_only_page_has_no_text_layer_and_a_problem() -> None:
    ingested = ingest_document(build_pdf([["Text."], []], blank=frozenset({1})), "scan")
    assert [s.has_text_layer for s in ingested.sections] == [True, False]
    assert ingested.sections[1].text == ""
    assert ingested.problems == [
        "no_text_layer: page 2 has no text layer (scanned?); it needs OCR"]
    assert all(c.section_id == "scan:0" for c in ingested.chunks)


def test_rotated_page_text_is_extracted() -> None:
    data = build_pdf([["Upright line."], ["Landscape line one.", "Landscape line two."]],
                     rotations={1: 90})
    sections = ingest_document(data, "rot").sections
    assert sections[1].text == "Landscape line one.\nLandscape line two."


def test_line_end_hyphenation_is_joined_in_a_generated_pdf() -> None:
    data = build_pdf([["The infor-", "mation flows to Trace-", "Monkey and a stop-the-",
                       "world pause."]])
    text = ingest_document(data, "hy").sections[0].text
    assert text == "The information flows to Trace-Monkey and a stop-the-world pause."


@pytest.mark.parametrize(("raw", "clean"), [
    ("di\ufb00erent \ufb01rst \ufb02ow e\ufb03cient ba\ufb04e \ufb05op \ufb06ep",
     "different first flow efficient baffle stop step"),
    ("com-\npile", "compile"),
    ("com- \n  pile", "compile"),
    ("Trace-\nMonkey", "Trace-Monkey"),
    ("IEEE-\n754", "IEEE-754"),
    ("stop-the-\nworld", "stop-the-world"),
    ("mixed-mode here, then mixed-\nmode", "mixed-mode here, then mixed-mode"),
    ("infor\u00ad\nmation co\u00adoperate", "information cooperate"),
    ("value -\n3", "value -\n3"),
    ("2008-\n02", "2008-\n02"),
    ("  padded  \n", "padded"),
])
def test_clean_page_text(raw: str, clean: str) -> None:
    assert clean_page_text(raw) == clean


def test_arabic_and_japanese_text_are_kept() -> None:
    assert clean_page_text("انواع الخطوط العربية\n標準マーケットモデル") == (
        "انواع الخطوط العربية\n標準マーケットモデル")


def test_chunks_are_exact_slices_of_pages() -> None:
    lines = [f"Line {n} of the page has several words in it." for n in range(25)]
    data = build_pdf([lines, lines])
    ingested = ingest_document(
        data, "doc", options=ChunkingOptions(chunk_size=200, chunk_overlap=30,
                                             include_chunk_text=True))
    assert len(ingested.chunks) > 4
    assert_chunks_are_slices(ingested)
    assert ingested.chunks[0].chunk_id == "doc:0:0"
