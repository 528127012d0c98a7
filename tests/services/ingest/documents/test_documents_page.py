"""The PDF page view: highlight rectangles, rotation, page-only fallback, PNG output."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from services.ingest.documents.page import page_view
from services.ingest.documents.rejection import DocumentRejection
from tests.services.ingest.documents.builders import build_pdf

LINES = ["The quick brown fox jumps over the lazy dog.", "A second line of plain text.",
         "It was the dog's day."]


def test_quote_found_with_rectangles_on_the_page() -> None:
    view = page_view(build_pdf([LINES]), 1, "brown fox jumps")
    assert view["found"] and view["match"] == "exact" and view["has_text_layer"]
    [[x0, y0, x1, y1]] = view["rects"]
    assert 40 <= x0 < x1 <= 400 and 40 <= y0 < y1 <= 70


def test_quote_is_matched_normalised() -> None:
    view = page_view(build_pdf([LINES]), 1, "the dog\u2019s\u00a0day")
    assert view["found"] and view["match"] == "exact" and view["confidence"] == 1.0


def test_quote_not_on_the_page() -> None:
    view = page_view(build_pdf([LINES]), 1, "nowhere to be seen")
    assert (view["found"], view["rects"], view["match"]) == (False, [], None)
    assert view["note"] == "passage not located on this page"


def test_quote_on_another_page_says_where() -> None:
    view = page_view(build_pdf([LINES, ["Only on the second page."]]), 1, "second page")
    assert (view["found"], view["rects"], view["moved"]) == (True, [], True)
    assert list(view["pages"]) == ["2"] and "page 2" in view["note"]


def test_no_quote_no_note() -> None:
    view = page_view(build_pdf([LINES]), 1)
    assert (view["found"], view["note"], view["has_text_layer"]) == (False, None, True)


def test_page_without_text_layer_falls_back_to_the_page(tmp_path: Path) -> None:
    png = tmp_path / "scan.png"
    data = build_pdf([LINES, []], blank=frozenset({1}))
    view = page_view(data, 2, "nowhere to be seen", png=png)
    assert (view["found"], view["has_text_layer"], view["rects"]) == (False, False, [])
    assert view["note"] == "page only, no text layer"
    moved = page_view(data, 2, "quick")  # found on the page before the scan
    assert (moved["rects"], moved["moved"], list(moved["pages"])) == ([], True, ["1"])
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
