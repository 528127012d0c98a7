"""A human-readable view of one `answer.formatted` result (what `citeflow up --demo` shows)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text


def summary(data: dict[str, Any]) -> Group:
    """The plain rendering, each citation with its sentence and source, and each answer
    unit: verbatim units with the exact source span they were found at, derived ones not."""
    sources = {s["index"]: s for s in data.get("sources", [])}
    citations = Table(title="citations", show_lines=False, expand=True)
    for column in ("marker", "sentence", "source", "valid"):
        citations.add_column(column, overflow="fold")
    for citation in data.get("citations", []):
        source = sources.get(citation.get("source_index") or -1, {})
        citations.add_row(
            citation["marker"],
            str(citation["sentence_index"] + 1),
            f"[{source.get('index', '?')}] {source.get('title') or source.get('url') or ''}",
            "yes" if citation["valid"] else f"no: {citation.get('problem')}",
        )
    units = Table(title="answer units", expand=True)
    for column in ("unit", "kind", "where it was found"):
        units.add_column(column, overflow="fold")
    for unit in data.get("answer_units", {}).get("units", []):
        found = "; ".join(
            f"{span['doc_id'] or span['section_id']} [{span['start_char']}:{span['end_char']}]"
            f" \u201c{span['quote']}\u201d"
            for span in unit["source_spans"]
        ) or ("supported by " + ", ".join(unit["supporting_sources"]) if
              unit["supporting_sources"] else "")
        units.add_row(unit["text"], unit["kind"], found)
    plain = data.get("renderings", {}).get("plain") or data.get("text", "")
    title = f"answer {data.get('answer_id')}"
    return Group(Panel(Text(plain), title=title), citations, units)
