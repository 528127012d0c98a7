"""Process commands: the embedded broker, topic creation, and one stage consumer (`run`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from services.cli import main
from services.cli.options import (
    config_options,
    create_pipeline_topics,
    err,
    pipeline_topic_names,
    print_json,
    run_async,
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


def topic_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The topic definition's flags (the same as its environment variables)."""
    for option in reversed([
        click.option("--partitions", type=int,
                     help="Partitions per topic [env CITEFLOW_PARTITIONS; 4]"),
        click.option("--replication-factor", type=int,
                     help="Replicas of each partition [env CITEFLOW_REPLICATION_FACTOR; 1]"),
        click.option("--retention-ms", type=int,
                     help="Retention of pipeline topics (dead letters: 4x) "
                          "[env CITEFLOW_RETENTION_MS; 7 days]"),
        click.option("--stage", "specs", multiple=True, metavar="STAGE",
                     help="Only the topics of these stages (name or module:attr) "
                          "[default: every pipeline stage and the store]"),
    ]):
        fn = option(fn)
    return config_options()(fn)


@topics.command("create")
@topic_options
def topics_create(specs: tuple[str, ...], **flags: Any) -> None:
    """Create every pipeline topic and the dead-letter topic of every stage input, as the
    topic definition says (`citeflow topics plan` prints it).

    Idempotent: topics that exist are left alone; any way they differ from the definition
    is printed (`citeflow topics check` does only that).
    """
    from services.broker import check_topics

    config = runtime_config(**flags)
    created = create_pipeline_topics(config, list(specs) or None)
    for name in created:
        click.echo(name)
    err.print(f"{len(created)} topics created on {config.bootstrap_servers}")
    for diff in run_async(check_topics(config, pipeline_topic_names(config, specs))):
        err.print(f"[yellow]differs:[/] {diff}")


@topics.command("check")
@topic_options
def topics_check(specs: tuple[str, ...], **flags: Any) -> None:
    """Compare the topics on the cluster with the definition and name every difference
    (missing topic, partitions, replication factor, min.insync.replicas, retention.ms,
    cleanup.policy, max.message.bytes). Exit status 1 when there is one."""
    from services.broker import check_topics

    config = runtime_config(**flags)
    found = run_async(check_topics(config, pipeline_topic_names(config, specs)))
    for diff in found:
        click.echo(str(diff))
    if found:
        raise click.ClickException(f"{len(found)} difference(s) on {config.bootstrap_servers}")
    err.print(f"every topic matches the definition on {config.bootstrap_servers}")


@topics.command("plan")
@topic_options
def topics_plan(specs: tuple[str, ...], **flags: Any) -> None:
    """Print the topic definition (JSON lines: name, partitions, replication factor,
    configs), for creating the topics with other tools."""
    from services.broker import planned_topics

    config = runtime_config(resolve=False, **flags)
    for spec in planned_topics(config, pipeline_topic_names(config, specs)):
        print_json({"name": spec.name, "partitions": spec.partitions,
                    "replication_factor": spec.replication_factor, "configs": spec.configs})


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
