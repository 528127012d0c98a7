"""`citeflow bench reader`: click-to-highlight and first render in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import click

from services.cli import bench
from services.cli.corpus import SHOWN_DEFAULT, default_corpus


@bench.command("reader")
@click.option("--corpus", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=default_corpus, show_default=SHOWN_DEFAULT,
              help="Directory holding the corpus documents (epub/, pdf/).")
@click.option("--rounds", type=click.IntRange(1, 50), default=3, show_default=True,
              help="Cold+warm rounds (the reader caches are emptied before each).")
@click.option("--store-url", default=None,
              help="Results store (default: a throwaway SQLite file).")
def bench_reader_cmd(corpus: Path, rounds: int, store_url: str | None) -> None:
    """Click-to-highlight p50/p95 per source kind, cold and warm, beside a click-fetch-paint
    floor; the viewer's first render of a 1,000-word answer with 50 citations."""
    from services.bench.reader import run

    click.echo("serving the corpus answers and clicking every chip and unit...", err=True)
    for line in run(corpus, rounds, store_url):
        click.echo(line)
