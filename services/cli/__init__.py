"""The `citeflow` command line. Each module of this package adds its commands to `main`."""

from __future__ import annotations

import re
from typing import Any

import click

# A setting's error names its variable first: `CITEFLOW_PARTITIONS='abc' is not a number`.
_SETTING_ERROR = re.compile(r"^(?:CITEFLOW_[A-Z0-9_]+|KAFKA_[A-Z_]+)\b")


class _Commands(click.Group):
    """The command group: an unusable setting ends a command with its one-line message (exit
    status 1), never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ValueError as error:
            if _SETTING_ERROR.match(str(error)):
                raise click.ClickException(str(error)) from None
            raise


@click.group(cls=_Commands,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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
    from services.cli import bench_runtime_cmds, topic_cmds, up_cmd  # noqa: F401
    from services.cli import keys_cmds  # noqa: F401
    from services.cli import gateway_cmds  # noqa: F401
    from services.cli import reader_cmds  # noqa: F401
    from services.cli import ops_cmds  # noqa: F401


_register()
