"""Topic commands: publish answers (`submit`), follow a topic (`tail`), re-publish records
(`replay`), and inspect and drain dead letters (`dlq`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import click
import orjson
from rich.console import Console
from rich.table import Table

from schemas.topics import ANSWERS_FORMATTED
from services.cli import main
from services.cli.output import ResultPrinter, format_option
from services.cli.options import (
    config_options,
    err,
    print_json,
    range_options,
    run_async,
    runtime_config,
)


# -- publishing and subscribing ------------------------------------------------------------


@main.command()
@click.argument("file", type=click.File("rb"))
@config_options()
@click.option("--raw", is_flag=True,
              help="Publish each line unchanged as the message value (an envelope, or bad "
                   "input to test rejections) instead of wrapping it in an event")
def submit(file: Any, raw: bool, **flags: Any) -> None:
    """Publish answers to answers.submitted, as an upstream service would.

    FILE (or - for stdin) holds answer.submitted data objects: one object, a JSON array or
    JSON Lines (with --raw: one value per line, published as it is); each is validated,
    wrapped in a CloudEvents envelope and keyed by its answer_id. Invalid answers are
    reported with the line they start on (an array item: its position) and make the exit
    status 1.
    """
    from dataclasses import replace

    from services.ingest.input_forms import InputFormError, split_records
    from services.runtime.operations import answer_records
    from services.runtime.topic_io import publish

    data = file.read()
    if raw:
        # Bytes that are not UTF-8 are kept as they are: --raw exists to send bad input.
        text = data.decode("utf-8", "surrogateescape")
        records, bad = answer_records(text.splitlines(), raw=True)
    else:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise click.ClickException(
                f"{getattr(file, 'name', '<stdin>')} is not UTF-8 (byte {exc.start}: {data[exc.start:exc.start + 1]!r}"
                "); send it with --raw to publish the bytes as they are") from None
        try:
            found = split_records(data)
        except InputFormError as exc:
            raise click.ClickException(str(exc)) from None
        records, bad = answer_records([record.raw.decode() for record in found])
        bad = [replace(item, line=found[item.line - 1].number) for item in bad]
    for item in bad:
        print_json({"line": item.line, "answer_id": item.answer_id, "error": item.error})
    # The input is read and its bad answers reported before the broker is asked: a mistake in
    # the file is said at once, whatever the broker's state.
    config = runtime_config(**flags)
    sent = run_async(publish(config, records)) if records else 0
    err.print(f"published {sent} answer(s) to {config.physical('answers.submitted')}")
    if not raw:
        _warn_untenanted(records)
    if bad:
        sys.exit(1)


def _warn_untenanted(records: list[Any]) -> None:
    """Say how many answers name no tenant: the store keeps them under `default`, which only
    admin keys (`?tenant=default`) and keys of that tenant read."""
    from services.store.decode import DEFAULT_TENANT, tenant_of

    count = sum(1 for record in records
                if tenant_of(orjson.loads(record.value)["data"].get("metadata"))
                == DEFAULT_TENANT)
    if count:
        err.print(f"{count} answer(s) name no metadata.tenant: stored under tenant "
                  f"'{DEFAULT_TENANT}', read with an admin key (?tenant={DEFAULT_TENANT})")


@main.command()
@config_options()
@click.option("--topic", default=ANSWERS_FORMATTED, show_default=True, help="Topic to follow")
@click.option("--from-beginning", is_flag=True, help="Start at the oldest record, not new ones")
@click.option("--count", type=int, help="Stop after N records")
@click.option("--timeout", type=float, help="Stop after this many seconds without a record")
@click.option("--data-only", is_flag=True, help="Print only each event's `data`")
@format_option
def tail(topic: str, from_beginning: bool, count: int | None, timeout: float | None,
         data_only: bool, output_format: str | None, **flags: Any) -> None:
    """Follow a topic (default answers.formatted) and print each event: a formatted
    answer's summary on a terminal, else a JSON line, as a dashboard would. Values that are
    not JSON are printed as a JSON string."""
    from services.runtime.operations import tail as tail_topic

    config = runtime_config(**flags)
    out = ResultPrinter(output_format)

    def show(record: Any) -> None:
        try:
            value = orjson.loads(record.value)
        except orjson.JSONDecodeError:
            value = (record.value or b"").decode("utf-8", "replace")
        if data_only and isinstance(value, dict):
            value = value.get("data")
        out.print(orjson.dumps(value))

    run_async(tail_topic(config, topic, show, from_beginning=from_beginning, count=count,
                    timeout=timeout))
    out.close()


# -- replay and dead letters ---------------------------------------------------------------


def _moment(value: str | None) -> int | None:
    """Milliseconds since the epoch of an ISO 8601 time (UTC when it names no zone)."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an ISO 8601 time "
                                 "(2026-11-27T03:00:00Z)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


@main.command()
@click.argument("topic")
@config_options()
@range_options
@click.option("--since", help="Records written at or after this time (ISO 8601; UTC unless "
                              "it names a zone)")
@click.option("--until", help="Records written before this time")
@click.option("--answer-id", "answer_ids", multiple=True, help="Only this answer (repeatable)")
@click.option("--answer-ids-from", type=click.File("r"),
              help="Only the answers listed in this file, one id a line (- for stdin)")
@click.option("--to", "target", help="Publish to this topic instead")
@click.option("--recompute", is_flag=True,
              help="Give the copies new event ids, so every stage recomputes and the results "
                   "store takes the new results (without it, the store keeps what it has)")
@click.option("--dry-run", is_flag=True, help="Only count what would be replayed")
def replay(topic: str, partition: int | None, start: int | None, end: int | None,
           since: str | None, until: str | None, answer_ids: tuple[str, ...],
           answer_ids_from: Any, target: str | None, recompute: bool, dry_run: bool,
           **flags: Any) -> None:
    """Re-publish records of TOPIC for re-processing: an offset range, a time range and/or
    answer ids. Exit status 1 when the selection is empty or cannot select anything.

    Records of a dead-letter topic (*.dlq) go back to the topic they came from (their
    headers say which); others are published to TOPIC again (or to --to). Keys, values
    and event headers are kept, so event ids stay the same unless --recompute.
    """
    from services.runtime.operations import Selection
    from services.runtime.operations import replay as replay_topic
    from services.runtime.topic_io import Range

    config = runtime_config(**flags)
    ids = set(answer_ids)
    if answer_ids_from is not None:
        ids |= {line.strip() for line in answer_ids_from if line.strip()}
    chosen = Selection(Range(partition, start, end), _moment(since), _moment(until),
                       frozenset(ids))
    stamp = f"r{datetime.now(UTC):%Y%m%dT%H%M%S%f}" if recompute else None
    try:
        counts = run_async(replay_topic(
            config, topic, chosen, target, dry_run=dry_run, recompute=stamp,
            progress=lambda done, total: err.print(f"replayed {done}/{total}")))
    except (ValueError, LookupError) as exc:
        raise click.ClickException(str(exc)) from None
    for name, n in counts.items():
        click.echo(f"{n}\t{name}")
    total = sum(counts.values())
    if not total:
        raise click.ClickException(f"the selection holds no record of {topic}")
    err.print(f"{'would replay' if dry_run else 'replayed'} {total} record(s)")


@main.group()
def dlq() -> None:
    """Dead letters still to be worked: list, show, drain (re-drive) and purge them.

    A letter is named `TOPIC:PARTITION:OFFSET` (the `id` that list and show print). Drained
    and purged letters are no longer listed or counted in /v1/pipeline.
    """


def letter_filters(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The options selecting letters, shared by show, drain and purge."""
    options = [
        click.option("--letter", "ids", multiple=True, metavar="ID",
                     help="One letter by id (repeatable)"),
        click.option("--stage", help="Letters of this stage"),
        click.option("--error-code", help="Letters with this error code"),
        click.option("--key", help="Letters with this key (answer or document id)"),
        click.option("--all", "every", is_flag=True, help="Every letter"),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _filter(ids: tuple[str, ...], stage: str | None, error_code: str | None,
            key: str | None, every: bool) -> Any:
    from services.runtime.dlq_ops import LetterFilter

    return LetterFilter(frozenset(ids), stage, error_code, key, every)


def _topics(config: Any, topics: tuple[str, ...], ids: tuple[str, ...]) -> list[str]:
    """The dead-letter topics named, else those of the letters named, else every one."""
    from services.runtime.operations import dlq_topics

    if topics:
        return list(topics)
    if ids:
        return sorted({i.rsplit(":", 2)[0] for i in ids})
    return list(run_async(dlq_topics(config)))


def _row(letter: Any, with_value: bool) -> dict[str, Any]:
    info = letter.info
    row: dict[str, Any] = {
        "id": letter.id, "key": (letter.record.key or b"").decode("utf-8", "replace"),
        "stage": info.stage, "error_type": info.error_type, "error_code": info.error_code,
        "error_message": info.error_message, "attempts": info.attempts,
        "original_topic": info.original_topic, "original_partition": info.original_partition,
        "original_offset": info.original_offset, "timestamp_ms": letter.record.timestamp,
        "size": len(letter.record.value or b""),
    }
    if with_value:
        value = letter.record.value or b""
        try:
            row["value"] = orjson.loads(value)
        except orjson.JSONDecodeError:
            row["value_text"] = value.decode("utf-8", "replace")
    return row


@dlq.command("list")
@click.argument("topics", nargs=-1)
@config_options()
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of a table")
def dlq_list(topics: tuple[str, ...], as_json: bool, **flags: Any) -> None:
    """List the letters still to be worked with why they failed (default: every *.dlq
    topic)."""
    from services.runtime.dlq_ops import LetterFilter, select

    config = runtime_config(**flags)
    picked, _ = run_async(select(config, _topics(config, topics, ()), LetterFilter(all=True)))
    table = Table("id", "key", "stage", "error", "attempts", "from")
    for letter in picked:
        row = _row(letter, with_value=False)
        if as_json:
            print_json(row)
        else:
            table.add_row(row["id"], row["key"], row["stage"],
                          f"{row['error_code']}: {row['error_message']}", str(row["attempts"]),
                          f"{row['original_topic']}[{row['original_partition']}]"
                          f"@{row['original_offset']}")
    if not as_json:
        Console().print(table)
    err.print(f"{len(picked)} dead letter(s) to work")


@dlq.command("show")
@click.argument("topics", nargs=-1)
@config_options()
@letter_filters
def dlq_show(topics: tuple[str, ...], ids: tuple[str, ...], stage: str | None,
             error_code: str | None, key: str | None, every: bool, **flags: Any) -> None:
    """Print selected letters as JSON lines: the reason (headers) and the content together
    (`value` when it is JSON, else `value_text`)."""
    from services.runtime.dlq_ops import select

    config = runtime_config(**flags)
    chosen = _filter(ids, stage, error_code, key, every or not (ids or stage or error_code
                                                                  or key))
    picked, _ = run_async(select(config, _topics(config, topics, ids), chosen))
    for letter in picked:
        print_json(_row(letter, with_value=True))
    if not picked:
        raise click.ClickException("no dead letter to work matches")


@dlq.command("drain")
@click.argument("topics", nargs=-1)
@config_options()
@letter_filters
@click.option("--dry-run", is_flag=True, help="Only say which letters would be re-driven")
@click.option("--wait", "wait_s", type=float, default=60.0, show_default=True,
              help="Seconds to wait for the stages to process the copies")
def dlq_drain(topics: tuple[str, ...], ids: tuple[str, ...], stage: str | None,
              error_code: str | None, key: str | None, every: bool, dry_run: bool,
              wait_s: float, **flags: Any) -> None:
    """Re-drive letters to the topic they came from (after a fix), then report how many were
    re-driven, still fail (a new letter; its id is printed), are pending and were skipped.

    Select letters with --letter, --stage, --error-code, --key or --all. Exit status 1 when
    some still fail or nothing was selected.
    """
    from services.runtime.dlq_ops import drain

    config = runtime_config(**flags)
    chosen = _filter(ids, stage, error_code, key, every)
    if chosen.empty:
        raise click.UsageError("select letters: --letter ID, --stage, --error-code, --key "
                               "or --all")
    report = run_async(drain(
        config, _topics(config, topics, ids), chosen, dry_run=dry_run, wait_s=wait_s,
        progress=lambda done, total: err.print(f"re-driven {done}/{total}")))
    for letter in report.selected:
        click.echo(f"{'would re-drive' if dry_run else 're-driven'}\t{letter.id}\t"
                   f"{letter.info.original_topic}")
    for new in report.still_failing:
        click.echo(f"still failing\t{new}")
    print_json({"selected": len(report.selected), "redriven": report.redriven,
                "still_failing": len(report.still_failing), "pending": report.pending,
                "skipped": report.skipped, "dry_run": dry_run})
    if not report.selected:
        raise click.ClickException("no dead letter to work matches")
    if report.still_failing:
        sys.exit(1)


@dlq.command("purge")
@click.argument("topics", nargs=-1)
@config_options()
@letter_filters
@click.option("--yes", is_flag=True, help="Do not ask for confirmation")
def dlq_purge(topics: tuple[str, ...], ids: tuple[str, ...], stage: str | None,
              error_code: str | None, key: str | None, every: bool, yes: bool,
              **flags: Any) -> None:
    """Mark letters worked without re-driving them (they stay on the topic until its
    retention removes them, but are no longer listed or counted)."""
    from services.runtime.dlq_ops import purge, select

    config = runtime_config(**flags)
    chosen = _filter(ids, stage, error_code, key, every)
    if chosen.empty:
        raise click.UsageError("select letters: --letter ID, --stage, --error-code, --key "
                               "or --all")
    picked, skipped = run_async(select(config, _topics(config, topics, ids), chosen))
    if not picked:
        raise click.ClickException("no dead letter to work matches")
    if not yes:
        click.confirm(f"purge {len(picked)} dead letter(s)?", abort=True)
    print_json({"purged": run_async(purge(config, picked)), "skipped": skipped})
