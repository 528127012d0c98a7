"""Process commands: the embedded broker, topic creation, and one stage consumer (`run`)."""

from __future__ import annotations

import sys
from typing import Any

import click

from services.cli import main
from services.cli.options import (
    config_options,
    create_pipeline_topics,
    err,
    runtime_config,
    wait_for_signal,
)


# -- broker and topics ---------------------------------------------------------------------


@main.command()
@click.option("--port", type=int, default=None,
              help="Port on 127.0.0.1 [default: 9092 when free, else any free port]")
@click.option("--partitions", type=int, default=None,
              help="Create the pipeline's topics with this many partitions [default: "
                   "CITEFLOW_PARTITIONS or 4]")
@click.option("--no-topics", is_flag=True, help="Do not create the pipeline's topics")
def broker(port: int | None, partitions: int | None, no_topics: bool) -> None:
    """Run the embedded Kafka-compatible broker (Tansu, memory storage) in the foreground.

    Prints its bootstrap address; other citeflow commands find it automatically.
    Stop it with Ctrl-C (all data is lost: memory storage).
    """
    from services.broker import forget_bootstrap, remember_bootstrap, start_broker

    embedded = start_broker(port)
    try:
        remember_bootstrap(embedded.bootstrap)
        if not no_topics:
            config = runtime_config(bootstrap_servers=embedded.bootstrap, partitions=partitions)
            created = create_pipeline_topics(config)
            err.print(f"created {len(created)} topics")
        click.echo(embedded.bootstrap)
        err.print(f"[green]broker[/] pid {embedded.pid} on {embedded.bootstrap}; Ctrl-C stops it")
        wait_for_signal(lambda: not embedded.alive())
    finally:
        forget_bootstrap(embedded.bootstrap)
        embedded.stop()


@main.group()
def topics() -> None:
    """Topics of the pipeline."""


@topics.command("create")
@config_options()
@click.option("--partitions", type=int, help="Partitions per topic [env CITEFLOW_PARTITIONS; 4]")
@click.option("--stage", "specs", multiple=True, metavar="STAGE",
              help="Create the dead-letter topics of these stages (name or module:attr) "
                   "[default: every pipeline stage]")
def topics_create(specs: tuple[str, ...], **flags: Any) -> None:
    """Create every pipeline topic and the dead-letter topic of every stage input.

    Idempotent: topics that exist are left alone.
    """
    config = runtime_config(**flags)
    created = create_pipeline_topics(config, list(specs) or None)
    for name in created:
        click.echo(name)
    err.print(f"{len(created)} topics created on {config.bootstrap_servers}")


# -- one stage -----------------------------------------------------------------------------


@main.command()
@click.argument("stage")
@config_options(run=True)
def run(stage: str, **flags: Any) -> None:
    """Run one stage consumer (what a container runs) until SIGTERM/SIGINT.

    STAGE is a pipeline stage name (ingest, scoring, citations, spans, formatting) or an
    import path `module:attr` of a Stage (or of a function returning one).
    On SIGTERM it stops fetching, finishes the in-flight batch, commits and leaves the
    group. Logs are JSON lines on stderr.
    """
    from services.runtime.process import run_stage
    from services.runtime.registry import load_stage

    try:
        loaded = load_stage(stage)
    except LookupError as exc:
        raise click.BadParameter(str(exc), param_hint="STAGE") from None
    sys.exit(run_stage(loaded, runtime_config(**flags)))
