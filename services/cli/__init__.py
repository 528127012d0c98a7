"""The `citeflow` command line. Each module of this package adds its commands to `main`."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="citeflow")
def main() -> None:
    """citeflow: verified, clickable attribution for LLM answers, as a Kafka pipeline."""


@main.group()
def bench() -> None:
    """Benchmarks: each prints our figure beside its reference, measured in the same run."""


@main.group()
def schemas() -> None:
    """Event schemas: export the JSON Schemas and the event contract's documentation."""


def _register() -> None:
    # Imported for their side effect of adding commands to `main`.
    from services.cli import documents_cmds, eval_cmds, pipeline_cmds, runtime_cmds  # noqa: F401
    from services.cli import keys_cmds  # noqa: F401
    from services.cli import gateway_cmds  # noqa: F401
    from services.cli import reader_cmds  # noqa: F401


_register()
