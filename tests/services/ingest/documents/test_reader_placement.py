"""Placing quotes for the reader: quote matching (normalisation, context, abstaining), marks in
sanitised chapters, and character-precise rectangles on PDF pages found quote-first."""

from __future__ import annotations

import random
from pathlib import Path

import lxml.html
import pymupdf
import pytest

from services.ingest.documents.chapter import epub_chapter
from services.ingest.documents.chapter_marks import prepare_chapter
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.pdf_locate import (
    NO_TEXT_LAYER,
    NOT_ON_PAGE,
    PdfIndex,
    locate,
    render_png,
)
from services.ingest.documents.quote_match import find_quote
from services.ingest.documents.rejection import DocumentRejection
from services.text.normalize import normalize_quote
from tests.conftest import CORPUS_DIR

CORPUS = CORPUS_DIR
needs_corpus = pytest.mark.usefixtures("corpus")


def _marked(html: str) -> list[str]:
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    return [mark.text_content() for mark in root.iter("mark")]


def inset(rect: list[float]) -> pymupdf.Rect:
    """A box a little inside its edges: get_textbox also reads a glyph that only touches it."""
    return pymupdf.Rect(rect[0] + 0.5, rect[1], rect[2] - 0.5, rect[3])


def read_box(page: pymupdf.Page, rect: list[float]) -> str:
    """What PyMuPDF reads in a highlight rectangle (given as displayed: derotated here)."""
    return page.get_text("text", clip=inset(rect) * page.derotation_matrix).strip()


def _pdf(pages: list[list[tuple[float, float, str]]]) -> bytes:
    document = pymupdf.open()
    for lines in pages:
        page = document.new_page()
        for x, y, text in lines:
            page.insert_text((x, y), text)
    return document.tobytes()


# ---- quote matching ------------------------------------------------------------------------

def test_exact_after_normalisation_maps_back_to_the_original():
    text = "It was the \ufb01rst  time\u2014a soft\u00adhyphen and infor-\nmation."
    found = find_quote(text, "first time-a softhyphen and information")
    assert found is not None and found.match == "exact"
    assert text[found.start:found.end] == "\ufb01rst  time\u2014a soft\u00adhyphen and infor-\nmation"


def test_context_chooses_among_occurrences_and_hint_breaks_ties():
    text = "the cat sat. the dog ran. the cat ran."
    found = find_quote(text, "the cat", suffix=" ran.")
    assert found is not None and (found.start, found.occurrences) == (26, 2)
    assert find_quote(text, "the cat", prefix="ran. ").start == 26
    assert find_quote(text, "the cat", hint=30).start == 26
    assert find_quote(text, "the cat").start == 0


def test_approximate_only_above_the_threshold():
    text = "A long passage about whales and the sea, with many words in it, for testing."
    near = find_quote(text, "A long passage about whales and the sea, with mny words in it")
    assert near is not None and near.match == "approximate" and near.confidence >= 0.9
    assert find_quote(text, "A short passage about fish and the lake, with few words") is None
    assert find_quote(text, "whale sea") is None  # short quotes are never approximate
    assert find_quote(text, "   ") is None and find_quote("", "x") is None


# ---- chapters --------------------------------------------------------------------------------

def test_marks_cross_elements_and_leave_structure_alone():
    html = '<p>One <em>two</em> three</p><ul><li>four</li>\n<li>five</li></ul>'
    marked, outcome = prepare_chapter(html, "two three four five")
    assert outcome is not None and outcome["found"]
    assert _marked(marked) == ["two", " three", "four", "five"]
    assert lxml.html.fragment_fromstring(marked, create_parent="div").text_content() == \
        lxml.html.fragment_fromstring(html, create_parent="div").text_content()


def test_a_quote_not_there_marks_nothing():
    marked, outcome = prepare_chapter("<p>Some text.</p>", "other words entirely here")
    assert outcome is not None and not outcome["found"] and "<mark" not in marked
    assert outcome["note"] == "passage not located in this chapter"


def test_chapter_marks_cannot_be_forged_by_the_chapter():
    # The sanitiser drops any mark of the document's own before marks are added.
    from services.ingest.documents.sanitize import clean_html

    clean = clean_html('<p><mark data-citeflow-highlight="">fake</mark> real text</p>')
    marked, _ = prepare_chapter(clean, "real text")
    assert _marked(marked) == ["real text"]


@needs_corpus
def test_moby_dick_random_quotes_are_marked_exactly():
    data = (CORPUS / "epub" / "moby-dick.epub").read_bytes()
    ingested = ingest_document(data, "moby")
    rng = random.Random(14)
    checked = 0
    for section in ingested.sections[6:12]:
        view = epub_chapter(data, section.href or "", "moby")
        for _ in range(10):
            start = rng.randrange(0, len(section.text) - 120)
            exact = section.text[start: start + rng.randint(20, 300)]
            if not exact.strip() or not any(c.isalpha() for c in exact):
                continue
            prefix, suffix = section.text[max(0, start - 32): start], section.text[
                start + len(exact): start + len(exact) + 32]
            marked, outcome = prepare_chapter(view["html"], exact, prefix, suffix)
            assert outcome is not None and outcome["found"], exact
            assert normalize_quote(" ".join(_marked(marked))) == normalize_quote(exact)
            checked += 1
    assert checked >= 50


# ---- PDF pages --------------------------------------------------------------------------------

def test_pdf_quote_first_hint_second_and_across_a_page_break():
    data = _pdf([[(72, 72, "Nothing here."), (72, 700, "The quote begins at the end")],
                 [(72, 72, "and carries on over the break."), (72, 100, "Other text.")]])
    index = PdfIndex(pymupdf.open(stream=data))
    across = locate(index, 1, "the end and carries on over")
    assert across["found"] and sorted(across["pages"]) == ["1", "2"]
    wrong_hint = locate(index, 2, "Nothing here")
    assert wrong_hint["moved"] and list(wrong_hint["pages"]) == ["1"]
    assert wrong_hint["rects"] == [] and "page 1" in wrong_hint["note"]
    absent = locate(index, 1, "not in the document")
    assert not absent["found"] and absent["note"] == NOT_ON_PAGE and absent["has_text_layer"]
    with pytest.raises(DocumentRejection):
        locate(index, 3, "x")


def test_pdf_rectangles_are_the_quoted_characters_only():
    data = _pdf([[(72, 72, "alpha beta gamma delta")]])
    page = pymupdf.open(stream=data)[0]
    view = locate(PdfIndex(pymupdf.open(stream=data)), 1, "beta gamma")
    (rect,) = view["rects"]
    assert read_box(page, rect) == "beta gamma"
    (expected,) = page.search_for("beta gamma")
    assert all(abs(a - b) < 1 for a, b in zip(rect, expected, strict=True))


@needs_corpus
@pytest.mark.parametrize("name", ["tracemonkey.pdf", "rotation.pdf"])
def test_pdf_random_section_quotes_read_back_from_their_boxes(name):
    data = (CORPUS / "pdf" / name).read_bytes()
    ingested = ingest_document(data, name)
    index = PdfIndex(pymupdf.open(stream=data))
    pdf = pymupdf.open(stream=data)
    pages = {number: pdf[number - 1] for number in range(1, pdf.page_count + 1)}
    rng = random.Random(7)
    checked = 0
    for section in ingested.sections:
        for _ in range(6):
            if len(section.text) < 30 or section.page is None:
                break
            # Whole words: a quote that ends inside a ligature glyph is highlighted whole.
            words = section.text.split(" ")
            first = rng.randrange(0, len(words))
            exact = " ".join(words[first: first + rng.randint(2, 20)]).strip()
            if sum(c.isalpha() for c in exact) < 8:
                continue
            view = locate(index, section.page or 1, exact)
            assert view["found"] and not view["moved"], (section.page, exact)
            read = "\n".join(read_box(pages[int(n)], r)
                              for n, rects in view["pages"].items() for r in rects)
            assert normalize_quote(exact) in (
                normalize_quote(read), normalize_quote(read, keep_break_hyphens=True)), (
                read, exact)
            checked += 1
    assert checked >= 5


@needs_corpus
def test_scanned_page_is_page_only_and_renders():
    data = (CORPUS / "pdf" / "c02-22.pdf").read_bytes()
    index = PdfIndex(pymupdf.open(stream=data))
    view = locate(index, 1, "Tom Sawyer")
    assert not view["found"] and view["note"] == NO_TEXT_LAYER
    assert render_png(index.document, 1, 0.5).startswith(b"\x89PNG")


@needs_corpus
def test_ligature_glyphs_are_highlighted_whole():
    data = (CORPUS / "pdf" / "copy_paste_ligatures.pdf").read_bytes()
    view = locate(PdfIndex(pymupdf.open(stream=data)), 1, "ffiffl")
    assert view["found"] and len(view["rects"]) == 1


@needs_corpus
def test_arabic_ligatures_are_read_in_logical_order_and_highlighted():
    """ArabicCIDTrueType.pdf draws `الخطوط` with the lam-khah ligature glyph (U+FCCB): ingest
    and placement read it as lam, khah (MuPDF's own expansion wrote khah, lam), so a correct
    Arabic quote is found in the chunk and on the page, and PyMuPDF reads it (presentation
    forms, folded) back from the boxes."""
    data = (CORPUS / "pdf" / "ArabicCIDTrueType.pdf").read_bytes()
    (section,) = ingest_document(data, "arabic").sections
    assert section.text.split("\n") == ["انواع الخطوط العربية"] * 4
    page = pymupdf.open(stream=data)[0]
    view = locate(PdfIndex(pymupdf.open(stream=data)), 1, "الخطوط العربية",
                  prefix="انواع ", suffix="\nانواع")
    assert view["found"] and view["match"] == "exact" and len(view["rects"]) == 1
    assert normalize_quote(read_box(page, view["rects"][0])) == "الخطوط العربية"
    # A quote that starts inside the ligature glyph (at its khah) is found; the glyph is
    # highlighted whole (its lam comes along), the alef before it is not.
    inner = locate(PdfIndex(pymupdf.open(stream=data)), 1, "خطوط العربية")
    assert inner["found"] and inner["match"] == "exact" and len(inner["rects"]) == 1
    assert normalize_quote(read_box(page, inner["rects"][0])) == "لخطوط العربية"


# ---- the content-addressed store ---------------------------------------------------------------

def test_store_puts_by_content_once(tmp_path):
    import hashlib

    from services.ingest.documents.store import LocalDocumentStore, content_reference

    store = LocalDocumentStore(tmp_path / "docs")
    first = store.put(b"%PDF-1.4 one", "pdf")
    assert first == content_reference(hashlib.sha256(b"%PDF-1.4 one").hexdigest(), "pdf")
    assert store.put(b"%PDF-1.4 one", "pdf") == first and store.read(first) == b"%PDF-1.4 one"
    assert len([p for p in (tmp_path / "docs").rglob("*") if p.is_file()]) == 1
    with pytest.raises(ValueError):
        content_reference("../etc", "pdf")
    with pytest.raises(ValueError):
        content_reference("a" * 64, "p/df")
