"""`citeflow page` places a quote as the reader does: on the page text as ingest reads it
(ligature glyphs expanded in logical order, Arabic ones too), with the reader's rectangles."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner

from services.cli import main
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.pdf_locate import PdfIndex, locate
from tests.conftest import corpus_path


def _page(path: Path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["page", str(path), "1", *args])
    assert result.exit_code == 0, result.stderr
    return dict(json.loads(result.stdout))


def _reader(path: Path, quote: str) -> dict:
    with pymupdf.open(path) as document:
        return dict(locate(PdfIndex(document), 1, quote))


@pytest.mark.parametrize(
    ("name", "quote"),
    [
        # MuPDF's own expansion writes the lam-khah ligature backwards (`اخلطوط`)
        ("ArabicCIDTrueType.pdf", "الخطوط العربية"),
        ("ArabicCIDTrueType.pdf", "انواع الخطوط"),
        # letters inside a ligature glyph (`t` of `ﬆ`, `l` of `ﬄ`) are highlighted with it
        ("copy_paste_ligatures.pdf", "tgh"),
        ("copy_paste_ligatures.pdf", "lst"),
        ("copy_paste_ligatures.pdf", "abcdeffffiflffifflststghijklmno"),
    ],
    ids=["arabic-lam-khah", "arabic-line-start", "st-glyph", "ffl-glyph", "whole-line"],
)
def test_page_places_the_quote_as_the_reader_does(name: str, quote: str) -> None:
    path = corpus_path("pdf", name)
    [section] = ingest_document(path.read_bytes(), "d1").sections[:1]
    assert quote in section.text  # what ingest reads
    view = _page(path, "--quote", quote)
    reader = _reader(path, quote)
    assert view["found"] and view["match"] == "exact" and view["rects"]
    assert {key: view[key] for key in reader} == reader


def test_ligature_letters_take_their_glyph_box() -> None:
    path = corpus_path("pdf", "copy_paste_ligatures.pdf")
    with pymupdf.open(path) as document:
        raw = document[0].get_text("rawdict", flags=pymupdf.TEXT_PRESERVE_LIGATURES)
    glyphs = {c["c"]: c["bbox"] for b in raw["blocks"] for ln in b["lines"]
              for s in ln["spans"] for c in s["chars"]}
    [[x0, _, x1, _]] = _page(path, "--quote", "tgh")["rects"]
    assert x0 == pytest.approx(glyphs["\ufb06"][0], abs=0.01)  # the `st` glyph's left edge
    assert x1 == pytest.approx(glyphs["h"][2], abs=0.01)


def test_the_png_highlights_the_arabic_quote(tmp_path: Path) -> None:
    path = corpus_path("pdf", "ArabicCIDTrueType.pdf")
    plain, marked = tmp_path / "plain.png", tmp_path / "marked.png"
    _page(path, "--png", str(plain), "--zoom", "1")
    view = _page(path, "--quote", "الخطوط العربية", "--png", str(marked), "--zoom", "1")
    assert view["found"] and view["png"] == str(marked)
    assert plain.read_bytes() != marked.read_bytes()
