"""On-call commands: `citeflow lag` (what `/v1/pipeline` shows, without the gateway)."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console
from rich.table import Table

from services.cli import main
from services.cli.options import config_options, print_json, run_async, runtime_config


@main.command()
@config_options()
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table")
def lag(as_json: bool, **flags: Any) -> None:
    """Consumer lag per stage, of every group reading its inputs, and the dead letters still
    to be worked (from the broker; the results store is not needed)."""
    from services.runtime.group_lag import pipeline_health

    health = run_async(pipeline_health(runtime_config(**flags)))
    if as_json:
        print_json(health)
        return
    table = Table("stage", "lag", "group", "consuming", "other groups (lag, members)",
                  "dead letters")
    for s in health["stages"]:
        others = ", ".join(f"{g['group']} ({g['lag']}, {g['members']})"
                           for g in s["groups"] if g["group"] != s["group"])
        table.add_row(s["stage"], str(s["lag"]), s["group"], "yes" if s["consuming"] else "no",
                      others, str(s["dead_letters"]))
    Console().print(table)
