"""`citeflow process`, `citeflow schemas export` and `citeflow bench process`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

import click
import orjson

from schemas.answers import PROVIDERS
from services.cli import bench, main, schemas
from services.cli.output import ResultPrinter, format_option


def _emit_error(stream: IO[str], payload: dict[str, object]) -> None:
    stream.write(orjson.dumps(payload).decode() + "\n")
    stream.flush()


@main.command()
@click.argument("source", type=click.File("rb"), default="-")
@click.option("--from", "provider", type=click.Choice(PROVIDERS), default=None,
              help="Lines are PROVIDER responses: {\"response\", \"request\" (optional), "
              "\"answer_id\", \"metadata\"} objects, normalised into answers first.")
@format_option
def process(source: IO[bytes], provider: str | None, output_format: str | None) -> None:
    """Run the whole pipeline in-process, no broker.

    SOURCE (default: stdin) holds `answer.submitted` data objects: one object (it may span
    lines), a JSON array of them, or JSON Lines; with `--from PROVIDER`, provider responses in
    the same forms. Each formatted answer is printed to stdout: on a terminal as a readable
    summary (each sentence, its chips and their verdicts, missing words, quoted spans), else
    as one JSON line (`--format` chooses). Each rejection or failure is printed to stderr as
    JSON naming the answer_id and where it was read, and the exit code is 1 if any answer was
    not processed. Good answers are printed either way.
    """
    from schemas.answers import AnswerRejected
    from schemas.envelope import payload_json
    from services.ingest.input_forms import InputFormError, split_records
    from services.pipeline import StageFailure, process_answer
    from services.runtime.gc_tuning import tune_gc

    from services.verification.config import configured_judge

    tune_gc()
    configured_judge()  # an unusable CITEFLOW_JUDGE: one line before any answer
    failed = 0
    out = ResultPrinter(output_format)
    try:
        records = split_records(source.read())
    except InputFormError as exc:
        raise click.ClickException(str(exc)) from None
    for record in records:
        number = record.number
        result = process_answer(record.raw, event_id=f"process:{record.position}",
                                position=record.position, provider=provider)
        where = {record.unit: number}
        if isinstance(result, AnswerRejected):
            failed += 1
            _emit_error(sys.stderr, {
                **where, "answer_id": result.answer_id, "code": result.code,
                "message": result.message, "path": result.path,
                "errors": [e.model_dump() for e in result.errors],
            })
        elif isinstance(result, StageFailure):
            failed += 1
            _emit_error(sys.stderr, {
                **where, "answer_id": result.answer_id, "code": "stage_failed",
                "stage": result.stage, "message": result.error,
            })
        else:
            out.print(payload_json(result))
    out.close()
    if failed:
        raise SystemExit(1)


@schemas.command("export")
@click.option("--out", "directory", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Directory to write to (default: the package's schemas/json).")
def export_schemas(directory: Path | None) -> None:
    """Write the JSON Schema of every current event version."""
    from schemas.export import JSON_DIR, export

    for path in export(directory or JSON_DIR):
        click.echo(str(path))


@schemas.command("docs")
def schema_docs() -> None:
    """Write docs/events.md, the event contract, from the JSON Schemas in schemas/json/."""
    from services.cli.events_doc import write

    click.echo(str(write()))


@bench.command("process")
@click.option("--runs", default=300, show_default=True, help="Timed runs per measurement.")
def bench_process(runs: int) -> None:
    """In-process pipeline on the benchmark answer (1,000 words, 50 citations, 10 sources of
    two 1,000-char chunks, 20 verbatim units), beside pySBD segmenting the same text."""
    from rich.console import Console
    from rich.table import Table

    from services.bench.extraction import bench_extraction
    from services.bench.formatting import bench_formatting
    from services.bench.process import bench_pipeline
    from services.bench.scoring import bench_scoring
    from services.bench.spans import bench_spans

    pipeline = bench_pipeline(runs)
    extraction = bench_extraction(runs)
    spans = bench_spans(runs)
    scoring = bench_scoring(runs)
    formatting = bench_formatting(runs)
    from services import native

    logic = "compiled stage logic (mypyc)" if native.is_active() else "plain Python stage logic"
    table = Table(title=f"citeflow bench process (per answer, median of {runs} runs; {logic})")
    for column in ("measurement", "ours", "reference (same run)", "ratio", "target"):
        table.add_column(column)
    table.add_row("whole pipeline, 5 stages", f"{pipeline['pipeline_ms']:.3f} ms",
                  f"pySBD {pipeline['pysbd_ms']:.2f} ms", f"{pipeline['speedup']:.1f}x faster",
                  ">= 50x faster")
    table.add_row("citation extraction + sentences", f"{extraction['extraction_ms']:.3f} ms",
                  f"pySBD {extraction['pysbd_ms']:.2f} ms",
                  f"{extraction['pysbd_ms'] / extraction['extraction_ms']:.0f}x faster",
                  "<= 0.5 ms")
    table.add_row("spans stage (20 verbatim units)", f"{spans['median_ms']:.3f} ms", "-", "-",
                  "<= 0.5 ms")
    table.add_row("scoring stage", f"{scoring['score_answer_ms']:.3f} ms", "-", "-", "-")
    table.add_row("formatting stage (3 renderings)", f"{formatting['format_answer_ms']:.3f} ms",
                  "-", "-", "-")
    Console(stderr=True).print(table)
    click.echo(orjson.dumps({"native": native.is_active(), "pipeline": pipeline, "extraction": extraction, "spans": spans,
                             "scoring": scoring, "formatting": formatting}).decode())


@bench.command("sentences")
@click.option("--runs", default=300, show_default=True, help="Timed runs per measurement.")
@click.option("--corpus", type=click.Path(path_type=Path), default=None,
              help="Corpus directory (default: $CITEFLOW_CORPUS or tests/corpus).")
def bench_sentences(runs: int, corpus: Path | None) -> None:
    """Sentences in every language: pySBD's per-language golden rules (citeflow
    not told the language, beside pySBD told it), a Chinese answer shaped like the benchmark one in
    process beside pySBD told `zh`, and 1 and 4 MB of Thai without spaces."""
    from services.bench.sentences import report
    from services.cli.corpus import default_corpus

    click.echo(report(runs, corpus or default_corpus()))


@bench.command("adapters")
@click.option("--runs", default=100, show_default=True, help="Timed runs per measurement.")
def bench_adapters(runs: int) -> None:
    """Provider-native input: the benchmark answer as each provider returns it;
    normalisation per answer beside `orjson.loads` of the same line, and the in-process
    pipeline on it beside the same answer given as `[N]` text."""
    from rich.console import Console
    from rich.table import Table

    from services.bench.adapters import bench_adapters as run

    result = run(runs)
    table = Table(title=f"citeflow bench adapters (per answer, median of {runs} runs)")
    for column in ("provider", "normalise", "orjson.loads (floor)", "ratio",
                   "pipeline", "[N] pipeline (same run)", "ratio"):
        table.add_column(column)
    for provider, row in result["providers"].items():
        table.add_row(provider, f"{row['normalize_ms']:.3f} ms", f"{row['json_loads_ms']:.3f} ms",
                      f"{row['normalize_ms'] / row['json_loads_ms']:.1f}x",
                      f"{row['pipeline_ms']:.3f} ms", f"{row['marked_pipeline_ms']:.3f} ms",
                      f"{row['pipeline_over_marked']:.2f}x")
    Console(stderr=True).print(table)
    click.echo(orjson.dumps(result).decode())


@bench.command("memory")
@click.option("--events", default=100_000, show_default=True, help="Answers to push through.")
def bench_memory(events: int) -> None:
    """Resident memory of all five stage handlers over many distinct answers (target: flat,
    within 10% of the first sample)."""
    from rich.progress import Progress

    from services.bench.memory import run

    with Progress(transient=True) as bar:
        task = bar.add_task("answers", total=events)
        result = run(events, progress=lambda done: bar.update(task, completed=done))
    click.echo(f"RSS after 100 answers: {result['start_mib']} MiB (the memos filling: "
               f"{result['baseline_mib'] - result['start_mib']:+.1f} MiB by the first sample); "
               f"after {result['series_mib'][0][0]} answers: {result['baseline_mib']} MiB; "
               f"after {events}: {result['final_mib']} MiB; growth "
               f"{result['growth'] * 100:+.1f}% (target within 10%)")
    click.echo(orjson.dumps(result).decode())
