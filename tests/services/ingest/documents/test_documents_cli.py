"""`citeflow ingest`, `chapter`, `page` and `bench ingest` through the click runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from services.cli import main
from tests.conftest import corpus_path
from tests.services.ingest.documents.builders import (
    Chapter,
    EpubSpec,
    build_epub,
    build_pdf,
    xhtml,
)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "epub": tmp_path / "My Book.epub",
        "pdf": tmp_path / "paper.pdf",
        "junk": tmp_path / "junk.epub",
    }
    paths["epub"].write_bytes(build_epub(EpubSpec([
        Chapter("one.xhtml", xhtml("<p onclick='x()'>Hello <script>bad()</script>world.</p>"),
                "One"),
        Chapter("two.xhtml", xhtml("<p>Two.</p>"), "Two"),
    ])))
    paths["pdf"].write_bytes(build_pdf([["Quoted text on page one."], []], blank=frozenset({1})))
    paths["junk"].write_bytes(b"not a zip at all")
    return paths


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_ingest_prints_the_ingested_data(files: dict[str, Path]) -> None:
    code, out, _ = run("ingest", str(files["epub"]), "--chunk-text")
    assert code == 0
    data = json.loads(out)
    assert data["doc_id"] == "My-Book" and data["format"] == "epub"
    assert [s["href"] for s in data["sections"]] == ["OEBPS/one.xhtml", "OEBPS/two.xhtml"]
    assert data["sections"][0]["text"] == "Hello world."
    assert data["chunks"][0]["text"] == "Hello world." and data["problems"] == []


def test_ingest_pdf_reports_the_scanned_page(files: dict[str, Path]) -> None:
    code, out, _ = run("ingest", str(files["pdf"]), "--doc-id", "p1")
    data = json.loads(out)
    assert code == 0 and [s["has_text_layer"] for s in data["sections"]] == [True, False]
    assert data["problems"] == ["no_text_layer: page 2 has no text layer (scanned?); it needs OCR"]


def test_ingest_rejection_exits_non_zero(files: dict[str, Path]) -> None:
    code, out, err = run("ingest", str(files["junk"]))
    assert code == 1 and out == ""
    assert json.loads(err)["code"] == "not_a_zip"
    code, _, _ = run("ingest", str(files["pdf"]), "--chunk-size", "100", "--chunk-overlap", "90")
    assert code == 2


def test_chapter_command(files: dict[str, Path]) -> None:
    code, out, _ = run("chapter", str(files["epub"]), "OEBPS/one.xhtml")
    view = json.loads(out)
    assert code == 0 and view["status"] == "ok" and view["next_href"] == "OEBPS/two.xhtml"
    assert "script" not in view["html"] and "onclick" not in view["html"]
    assert set(view) == {"status", "html", "title", "href", "prev_href", "next_href"}


@pytest.mark.parametrize("href", ["../../etc/passwd", "OEBPS/content.opf", "nope.xhtml"])
def test_chapter_refuses_hrefs_outside_the_spine(files: dict[str, Path], href: str) -> None:
    code, out, err = run("chapter", str(files["epub"]), href)
    assert code == 1 and out == ""
    assert json.loads(err)["code"] == "href_not_in_spine"


def test_page_command(files: dict[str, Path], tmp_path: Path) -> None:
    png = tmp_path / "out.png"
    code, out, _ = run("page", str(files["pdf"]), "1", "--quote", "text on page", "--png", str(png))
    view = json.loads(out)
    assert code == 0 and view["found"] and len(view["rects"]) == 1 and png.exists()
    code, out, _ = run("page", str(files["pdf"]), "2", "--quote", "text on page")
    view = json.loads(out)
    assert code == 0 and view["rects"] == [] and view["moved"] and list(view["pages"]) == ["1"]
    code, _, err = run("page", str(files["pdf"]), "3")
    assert code == 1 and json.loads(err)["code"] == "page_out_of_range"


def test_bench_ingest_runs_and_prints_both_figures() -> None:
    corpus = corpus_path()
    code, out, _ = run("bench", "ingest", "--corpus", str(corpus), "--times", "1",
                       "--pdf-rounds", "1", "--epub-rounds", "1")
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 3
    assert "pages/s" in lines[0] and "bare PyMuPDF" in lines[0] and "ratio" in lines[0]
    assert "docs/s" in lines[1] and "raw item bytes" in lines[1] and "ratio" in lines[1]
