"""The PDF page view: highlight rectangles, rotation, page-only fallback, PNG output."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from services.ingest.documents.page import page_view, quote_variants
from services.ingest.documents.rejection import DocumentRejection
from tests.services.ingest.documents.builders import build_pdf

LINES = ["The quick brown fox jumps over the lazy dog.", "A second line of plain text.",
         "It was the dog's day."]


def test_quote_found_with_rectangles_on_the_page() -> None:
    view = page_view(build_pdf([LINES]), 1, "brown fox jumps")
    assert view["found"] and view["match"] == "exact" and view["has_text_layer"]
    [[x0, y0, x1, y1]] = view["rects"]
    assert 40 <= x0 < x1 <= 400 and 40 <= y0 < y1 <= 70


def test_normalised_quote_is_tried() -> None:
    view = page_view(build_pdf([LINES]), 1, "the dog\u2019s\u00a0day")
    assert view["found"] and view["match"] == "normalised"


def test_quote_not_on_the_page() -> None:
    view = page_view(build_pdf([LINES]), 1, "nowhere to be seen")
    assert (view["found"], view["rects"], view["match"]) == (False, [], None)


def test_page_without_text_layer_falls_back_to_the_page(tmp_path: Path) -> None:
    png = tmp_path / "scan.png"
    view = page_view(build_pdf([LINES, []], blank=frozenset({1})), 2, "quick", png=png)
    assert (view["found"], view["has_text_layer"], view["rects"]) == (False, False, [])
    assert png.read_bytes().startswith(b"\x89PNG")


def test_rotated_page_rectangles_are_in_displayed_coordinates(tmp_path: Path) -> None:
    png = tmp_path / "rot.png"
    view = page_view(build_pdf([LINES], rotations={0: 90}), 1, "second line", png=png, zoom=1.0)
    assert (view["rotation"], view["width"], view["height"]) == (90, 500, 400)
    [[x0, y0, x1, y1]] = view["rects"]
    assert 0 <= x0 < x1 <= 500 and 0 <= y0 < y1 <= 400
    assert y1 - y0 > x1 - x0  # a horizontal text line turned a quarter: taller than wide
    pixmap = pymupdf.Pixmap(str(png))
    assert (pixmap.width, pixmap.height) == (500, 400)


def test_png_has_the_highlight(tmp_path: Path) -> None:
    plain, marked = tmp_path / "plain.png", tmp_path / "marked.png"
    data = build_pdf([LINES])
    page_view(data, 1, None, png=plain)
    view = page_view(data, 1, "lazy dog", png=marked)
    assert view["found"] and plain.read_bytes() != marked.read_bytes()


@pytest.mark.parametrize("number", [0, 2, -1])
def test_page_out_of_range(number: int) -> None:
    with pytest.raises(DocumentRejection) as caught:
        page_view(build_pdf([LINES]), number)
    assert caught.value.code == "page_out_of_range"


def test_quote_variants_order_and_dedup() -> None:
    kinds = [kind for kind, _ in quote_variants("co\u00adoperate \ufb01rst-class")]
    assert kinds == ["exact", "normalised", "dehyphenated"]
    long = "word " * 20
    assert quote_variants(long)[-1][0] == "prefix"
