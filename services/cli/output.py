"""How the CLI prints results (`--format`): a readable summary by default on a terminal,
JSON when piped.

- `summary`: each answer sentence by sentence (services.cli.summary);
- `pretty`: each result as indented JSON, coloured on a terminal;
- `jsonl`: one compact JSON object per line (the default when stdout is not a terminal);
- `json`: every result in one JSON array, written at the end.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any, TypeVar

import click
import orjson
from rich.console import Console
from rich.json import JSON

FORMATS = ("summary", "pretty", "json", "jsonl")
F = TypeVar("F", bound=Callable[..., Any])


def format_option(func: F) -> F:
    """`--format` on a command that prints results."""
    return click.option(
        "--format", "output_format", type=click.Choice(FORMATS), default=None,
        help="summary (readable), pretty (indented JSON), json (one array) or jsonl (a line "
             "each) [default: summary on a terminal, jsonl when piped]")(func)


class ResultPrinter:
    """Prints results in one format to `stream` (stdout by default); `close()` ends a
    `json` array."""

    def __init__(self, output_format: str | None, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout
        self.format = output_format or ("summary" if self.stream.isatty() else "jsonl")
        self.console = Console(file=self.stream, soft_wrap=self.format == "pretty")
        self._collected: list[bytes] = []

    def print(self, raw: bytes) -> None:
        """One result as JSON bytes: a formatted answer's data (summarised) or any value."""
        if self.format == "jsonl":
            self.stream.write(raw.decode() + "\n")
            self.stream.flush()
        elif self.format == "json":
            self._collected.append(raw)
        else:
            value = orjson.loads(raw) if self.format == "summary" else None
            if isinstance(value, dict) and isinstance(value.get("data"), dict):
                value = value["data"]  # an event: its formatted answer
            if isinstance(value, dict) and "citations" in value:
                from services.cli.summary import summary

                self.console.print(summary(value))
            else:
                self.console.print(JSON(raw.decode()))

    def close(self) -> None:
        if self.format == "json":
            self.stream.write("[" + ",\n".join(b.decode() for b in self._collected) + "]\n")
            self.stream.flush()
