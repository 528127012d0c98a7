"""`citeflow bench ingest`: document ingest throughput against the bare libraries.

Both sides run in the same process on the same file, interleaved, best of N rounds:
- PDF: our ingest (checks, text clean-up, sections, chunks, event payload) against bare
  PyMuPDF `page.get_text()` over every page, on tracemonkey.pdf repeated 20x (280 pages,
  built in a temporary directory at bench time). Both open the file from disk.
- EPUB: our ingest against bare ebooklib `read_epub` plus lxml text of every document
  item, on moby-dick.epub. Two references: the raw item bytes
  (`lxml.html.fromstring(item.content).text_content()`, the stricter one, used for the
  target) and ebooklib's own `item.get_content()` (which re-renders each document).
"""

from __future__ import annotations

import gc
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ebooklib
import lxml.html
import pymupdf
from ebooklib import epub

from services.ingest.documents.ingest import ingest_document

PDF_TARGET = 0.8
EPUB_TARGET = 0.7


@dataclass(frozen=True)
class Figure:
    """One measured comparison: units per second of ours and of the reference."""

    name: str
    unit: str
    ours: float
    reference: float
    reference_name: str
    target: float | None

    @property
    def ratio(self) -> float:
        return self.ours / self.reference

    def line(self) -> str:
        verdict = "" if self.target is None else (
            f"  target >= {self.target:.1f}x: {'met' if self.ratio >= self.target else 'MISSED'}"
        )
        return (f"{self.name}: ours {self.ours:,.1f} {self.unit}/s, {self.reference_name} "
                f"{self.reference:,.1f} {self.unit}/s, ratio {self.ratio:.2f}x{verdict}")


def repeated_pdf(source: Path, times: int, out: Path) -> int:
    """Write `source` repeated `times` times to `out`; returns the page count."""
    with pymupdf.open(source) as original, pymupdf.open() as combined:
        for _ in range(times):
            combined.insert_pdf(original)
        combined.save(out)
        return combined.page_count


def best_seconds(runs: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """The best wall time of each callable over `rounds` interleaved rounds, with the
    garbage collector paused during each timed call as `timeit` does (same for all)."""
    best = {name: float("inf") for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            gc.collect()
            gc.disable()
            try:
                started = time.perf_counter()
                run()
                best[name] = min(best[name], time.perf_counter() - started)
            finally:
                gc.enable()
    return best


def _bare_pdf(path: Path) -> int:
    with pymupdf.open(path) as document:
        return sum(len(page.get_text()) for page in document)


def _bare_epub(path: Path, raw: bool) -> int:
    book = epub.read_epub(str(path), {"ignore_ncx": True})
    return sum(
        len(lxml.html.fromstring(item.content if raw else item.get_content()).text_content())
        for item in book.get_items_of_type(ebooklib.ITEM_DOCUMENT)
    )


def bench_pdf(source: Path, times: int = 20, rounds: int = 5) -> Figure:
    """PDF pages/s: our ingest against bare PyMuPDF text extraction."""
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp:
        path = Path(tmp) / f"{source.stem}-x{times}.pdf"
        pages = repeated_pdf(source, times, path)
        best = best_seconds({
            "ours": lambda: ingest_document(path.read_bytes(), "bench-pdf"),
            "bare": lambda: _bare_pdf(path),
        }, rounds)
    return Figure(f"PDF {source.name} x{times} ({pages} pages)", "pages", pages / best["ours"],
                  pages / best["bare"], "bare PyMuPDF get_text()", PDF_TARGET)


def bench_epub(path: Path, rounds: int = 30) -> list[Figure]:
    """EPUB documents/s: our ingest against bare ebooklib + lxml (two references)."""
    documents = len(ingest_document(path.read_bytes(), "bench-epub").sections)
    best = best_seconds({
        "ours": lambda: ingest_document(path.read_bytes(), "bench-epub"),
        "raw": lambda: _bare_epub(path, raw=True),
        "rendered": lambda: _bare_epub(path, raw=False),
    }, rounds)
    name = f"EPUB {path.name} ({documents} spine documents)"
    ours = documents / best["ours"]
    return [
        Figure(name, "docs", ours, documents / best["raw"],
               "bare ebooklib + lxml (raw item bytes)", EPUB_TARGET),
        Figure(name, "docs", ours, documents / best["rendered"],
               "bare ebooklib + lxml (item.get_content())", None),
    ]


def run(corpus: Path, times: int = 20, pdf_rounds: int = 5, epub_rounds: int = 30) -> list[Figure]:
    """Both benchmarks in one run."""
    figures = [bench_pdf(corpus / "pdf" / "tracemonkey.pdf", times, pdf_rounds)]
    figures.extend(bench_epub(corpus / "epub" / "moby-dick.epub", epub_rounds))
    return figures
