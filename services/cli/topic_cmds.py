"""Topic commands: publish answers (`submit`), follow a topic (`tail`), re-publish records
(`replay`), and inspect and drain dead letters (`dlq`)."""

from __future__ import annotations

import sys
from dataclasses import replace
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
@click.argument("file", type=click.File("r"))
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

    config = runtime_config(**flags)
    text = file.read()
    if raw:
        records, bad = answer_records(text.splitlines(), raw=True)
    else:
        try:
            found = split_records(text.encode())
        except InputFormError as exc:
            raise click.ClickException(str(exc)) from None
        records, bad = answer_records([record.raw.decode() for record in found])
        bad = [replace(item, line=found[item.line - 1].number) for item in bad]
    for item in bad:
        print_json({"line": item.line, "answer_id": item.answer_id, "error": item.error})
    sent = run_async(publish(config, records)) if records else 0
    err.print(f"published {sent} answer(s) to {config.physical('answers.submitted')}")
    if bad:
        sys.exit(1)


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


@main.command()
@click.argument("topic")
@config_options()
@range_options
@click.option("--to", "target", help="Publish to this topic instead")
def replay(topic: str, partition: int | None, start: int | None, end: int | None,
           target: str | None, **flags: Any) -> None:
    """Re-publish records of TOPIC for re-processing.

    Records of a dead-letter topic (*.dlq) go back to the topic they came from (their
    headers say which); others are published to TOPIC again (or to --to). Keys, values
    and event headers are kept, so event ids stay the same.
    """
    from services.runtime.operations import replay as replay_topic
    from services.runtime.topic_io import Range

    config = runtime_config(**flags)
    counts = run_async(replay_topic(config, topic, Range(partition, start, end), target))
    for name, n in counts.items():
        click.echo(f"{n}\t{name}")
    err.print(f"replayed {sum(counts.values())} record(s)")


@main.group()
def dlq() -> None:
    """Dead-letter topics: inspect and drain."""


@dlq.command("list")
@click.argument("topics", nargs=-1)
@config_options()
@range_options
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of a table")
def dlq_list(topics: tuple[str, ...], partition: int | None, start: int | None,
             end: int | None, as_json: bool, **flags: Any) -> None:
    """List dead letters with why they failed (default: every *.dlq topic)."""
    from services.runtime.operations import dead_letters, dlq_topics
    from services.runtime.topic_io import Range

    config = runtime_config(**flags)
    names = list(topics) or run_async(dlq_topics(config))
    table = Table("topic", "offset", "key", "stage", "error", "attempts", "from")
    for name in names:
        for record, info in run_async(dead_letters(config, name, Range(partition, start, end))):
            key = (record.key or b"").decode("utf-8", "replace")
            row = {
                "topic": name, "partition": record.partition, "offset": record.offset,
                "key": key, "size": len(record.value or b""),
                **({} if info is None else {
                    "stage": info.stage, "error_type": info.error_type,
                    "error_code": info.error_code, "error_message": info.error_message,
                    "attempts": info.attempts, "original_topic": info.original_topic,
                    "original_partition": info.original_partition,
                    "original_offset": info.original_offset,
                }),
            }
            if as_json:
                print_json(row)
            elif info is not None:
                table.add_row(f"{name}[{record.partition}]", str(record.offset), key,
                              info.stage, f"{info.error_type}: {info.error_message}",
                              str(info.attempts),
                              f"{info.original_topic}[{info.original_partition}]"
                              f"@{info.original_offset}")
    if not as_json:
        Console().print(table)


@dlq.command("drain")
@click.argument("topic")
@config_options()
@click.option("--group-id", default=None,
              help="Group remembering what was drained [default: citeflow-dlq-drain]")
def dlq_drain(topic: str, group_id: str | None, **flags: Any) -> None:
    """Re-publish the dead letters of TOPIC (a *.dlq topic) to their original topics.

    Each letter is drained once: progress is committed in a consumer group after the
    broker acknowledged the copies.
    """
    from services.runtime.operations import drain

    config = runtime_config(**flags)
    group = group_id or f"{config.topic_prefix}citeflow-dlq-drain"
    counts = run_async(drain(config, topic, group))
    for name, n in counts.items():
        click.echo(f"{n}\t{name}")
    err.print(f"drained {sum(counts.values())} dead letter(s) from {topic}")
