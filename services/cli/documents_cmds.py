"""Document commands: `ingest`, `chapter`, `page`, and `bench ingest`."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Literal, NoReturn

import click
import orjson

from schemas.documents import ChunkingOptions
from services.cli import bench, main
from services.cli.corpus import SHOWN_DEFAULT, default_corpus
from services.ingest.documents.chapter import epub_chapter
from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.page import page_view
from services.ingest.documents.rejection import DocumentRejection

FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9._:-]+")


def _default_doc_id(path: Path) -> str:
    """A valid doc_id from a file name."""
    return _UNSAFE_ID.sub("-", path.stem).strip("-")[:200] or "document"


def _print(data: Any) -> None:
    click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())


def _refuse(exc: DocumentRejection, **context: Any) -> NoReturn:
    """Print a refusal as JSON on stderr and exit non-zero."""
    payload = {"status": "error", "code": exc.code, "message": exc.message, **context}
    click.echo(orjson.dumps(payload).decode(), err=True)
    sys.exit(1)


@main.command("ingest")
@click.argument("file", type=FILE)
@click.option("--doc-id", help="Document id (default: from the file name).")
@click.option("--format", "fmt", type=click.Choice(["pdf", "epub"]),
              help="Declared format (default: sniffed from the bytes).")
@click.option("--chunk-size", type=int, default=1000, show_default=True)
@click.option("--chunk-overlap", type=int, default=100, show_default=True)
@click.option("--chunk-text/--no-chunk-text", default=False, show_default=True,
              help="Repeat each chunk's text (by default chunks carry offsets only).")
def ingest_cmd(
    file: Path, doc_id: str | None, fmt: Literal["pdf", "epub"] | None, chunk_size: int, chunk_overlap: int,
    chunk_text: bool,
) -> None:
    """Ingest one EPUB or PDF and print its documents.ingested data as JSON.

    A rejected document prints the rejection (code, message) on stderr and exits 1.
    """
    doc_id = doc_id or _default_doc_id(file)
    try:
        options = ChunkingOptions(chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                                  include_chunk_text=chunk_text)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    try:
        ingested = ingest_document(file.read_bytes(), doc_id, declared_format=fmt,
                                   name=file.name, uri=str(file), options=options)
    except DocumentRejection as exc:
        _refuse(exc, doc_id=doc_id, uri=str(file))
    click.echo(ingested.model_dump_json(indent=2))


@main.command("chapter")
@click.argument("file", type=FILE)
@click.argument("href")
@click.option("--doc-id", help="Document id used in resource paths (default: from the file name).")
def chapter_cmd(file: Path, href: str, doc_id: str | None) -> None:
    """Print one EPUB chapter, sanitised, as {status, html, title, href, prev_href, next_href}.

    HREF must be a spine item exactly as `citeflow ingest` reports it; anything else
    (traversal included) is refused with exit 1.
    """
    try:
        view = epub_chapter(file.read_bytes(), href, doc_id or _default_doc_id(file))
    except DocumentRejection as exc:
        _refuse(exc, href=href)
    _print(view)


@main.command("page")
@click.argument("file", type=FILE)
@click.argument("number", type=int)
@click.option("--quote", help="Text to highlight (a TextQuoteSelector's exact).")
@click.option("--prefix", default="", help="Text just before the quote (its prefix).")
@click.option("--suffix", default="", help="Text just after the quote (its suffix).")
@click.option("--png", "png", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the page as PNG here (the quote highlighted when found).")
@click.option("--zoom", type=click.FloatRange(0.1, 8.0), default=2.0, show_default=True)
def page_cmd(
    file: Path, number: int, quote: str | None, prefix: str, suffix: str, png: Path | None,
    zoom: float,
) -> None:
    """Render PDF page NUMBER (1-based) and print where the reader places the quote:
    {page, found, match, confidence, pages, rects, moved, has_text_layer, note, ...}.

    The quote is searched as the reader does (the page text as ingest reads it, the hinted
    page first, then the others); `rects` are on page NUMBER, `pages` gives them per page.
    A page without a text layer gets no rectangles (page-only fallback).
    """
    try:
        view = page_view(file.read_bytes(), number, quote, png, zoom, prefix=prefix,
                         suffix=suffix)
    except DocumentRejection as exc:
        _refuse(exc, page=number)
    _print(view)


@bench.command("ingest")
@click.option("--corpus", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=default_corpus, show_default=SHOWN_DEFAULT,
              help="Directory holding pdf/tracemonkey.pdf and epub/moby-dick.epub.")
@click.option("--times", type=int, default=20, show_default=True,
              help="How often tracemonkey.pdf is repeated.")
@click.option("--pdf-rounds", type=int, default=5, show_default=True)
@click.option("--epub-rounds", type=int, default=30, show_default=True)
def bench_ingest_cmd(corpus: Path, times: int, pdf_rounds: int, epub_rounds: int) -> None:
    """Document ingest throughput against bare PyMuPDF and bare ebooklib + lxml."""
    from services.bench.ingest import run

    click.echo("measuring (best of interleaved rounds)...", err=True)
    for figure in run(corpus, times, pdf_rounds, epub_rounds):
        click.echo(figure.line())
