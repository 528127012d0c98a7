"""A human-readable view of one `answer.formatted` result (`citeflow process` on a terminal,
`citeflow up --demo`): each sentence with its citation chips, each chip's verdict, the
source it names, the words the source lacks, and the quoted spans found word for word.

It reads the result defensively (fields it does not know are skipped, `missing` may hold
words or objects naming them), so a result from a newer pipeline still prints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

VERDICT_STYLES = {"supported": "green", "partial": "yellow", "unsupported": "red",
                  "unverifiable": "magenta", "invalid": "bold red"}
# Words of a `missing` entry that is an object: the first of these it has.
WORD_KEYS = ("text", "word", "token", "term")


def _source_label(source: Mapping[str, Any] | None, index: Any) -> str:
    """`[n] title (web page | epub document ...)`: what a chip points at."""
    if not source:
        return f"[{index}] (no such source)" if index is not None else "(no source)"
    name = source.get("title") or source.get("url") or source.get("doc_id") or ""
    if source.get("kind") == "web":
        kind = "web page"
    else:
        kind = f"{source['format']} document" if source.get("format") else "document"
    return f"[{source.get('index', index)}] {name} ({kind})".replace("]  (", "] (")


def _chip(marker: str) -> str:
    """A marker as its chip reads: a markdown link marker by its text alone."""
    return marker.split("](", 1)[0] + "]" if "](" in marker else marker


def _words(missing: Any) -> list[str]:
    """The words a `missing` list names: strings, or objects carrying the word."""
    if not isinstance(missing, list):
        return []
    words = []
    for item in missing:
        if isinstance(item, Mapping):
            word = next((item[k] for k in WORD_KEYS if isinstance(item.get(k), str)), None)
            words.append(word if word is not None else str(dict(item)))
        else:
            words.append(str(item))
    return words


def _verdict(citation: Mapping[str, Any]) -> tuple[str, str]:
    """(the verdict shown, why): an invalid citation's problem, else its support."""
    if not citation.get("valid", True):
        return "invalid", str(citation.get("problem") or "")
    support = citation.get("support")
    if not isinstance(support, Mapping):
        return "not judged", ""
    why = []
    words = _words(support.get("missing"))
    if words:
        why.append("missing: " + ", ".join(words))
    if support.get("reason"):
        why.append(f"reason: {support['reason']}")
    return str(support.get("verdict") or "not judged"), "; ".join(why)


def _quotes(data: Mapping[str, Any], start: int, end: int) -> list[Text]:
    """The quoted spans of the answer units inside a sentence's [start, end): found word for
    word (where), or a quote that was not found."""
    units = (data.get("answer_units") or {}).get("units") or []
    lines = []
    for unit in units:
        if not isinstance(unit, Mapping) or not start <= (unit.get("start") or 0) < end:
            continue
        for span in unit.get("source_spans") or []:
            page = (span.get("locator") or {}).get("page")
            line = Text("quoted word for word: ", style="cyan")
            line.append(f"\u201c{span.get('quote', '')}\u201d")
            line.append(f" ([{span.get('source_index')}]{f' p. {page}' if page else ''}, "
                        f"characters {span.get('start_char')}-{span.get('end_char')})",
                        style="dim")
            lines.append(line)
        if unit.get("downgraded"):
            line = Text("quote not found word for word in its source", style="yellow")
            if unit.get("closest_match"):
                line.append(f"; closest: \u201c{unit['closest_match']}\u201d", style="dim")
            lines.append(line)
    return lines


def _headline(data: Mapping[str, Any]) -> Text:
    coverage = data.get("coverage") or {}
    counts: dict[str, int] = {}
    for citation in data.get("citations") or []:
        verdict = _verdict(citation)[0]
        counts[verdict] = counts.get(verdict, 0) + 1
    line = Text(f"answer {data.get('answer_id')}", style="bold")
    if coverage:
        line.append(f" \u00b7 {coverage.get('sentences_cited', '?')} of "
                    f"{coverage.get('sentences_total', '?')} sentences cited")
    for verdict, count in counts.items():
        line.append(" \u00b7 ")
        line.append(f"{count} {verdict}", style=VERDICT_STYLES.get(verdict, ""))
    return line


def summary(data: Mapping[str, Any]) -> Group:
    """The answer sentence by sentence: each sentence (with its quoted spans), then one row
    per citation chip: its verdict, the source it names, and why (missing words, problem)."""
    sources = {s.get("index"): s for s in data.get("sources") or [] if isinstance(s, Mapping)}
    citations = [c for c in data.get("citations") or [] if isinstance(c, Mapping)]
    table = Table(expand=True, show_lines=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("sentence", ratio=3, overflow="fold")
    table.add_column("chip", overflow="fold")
    table.add_column("verdict", no_wrap=True)
    table.add_column("source", ratio=2, overflow="fold")
    table.add_column("why", ratio=2, overflow="fold")
    for sentence in data.get("sentences") or []:
        index = sentence.get("index")
        text: list[RenderableType] = [Text(str(sentence.get("text", "")))]
        text += _quotes(data, sentence.get("start", 0), sentence.get("end", 0))
        cell = Group(*text)
        mine = [c for c in citations if c.get("sentence_index") == index]
        if not mine:
            table.add_row(str((index or 0) + 1), cell, "", Text("uncited", style="dim"), "", "")
        for n, citation in enumerate(mine):
            verdict, why = _verdict(citation)
            table.add_row(str((index or 0) + 1) if n == 0 else "", cell if n == 0 else "",
                          _chip(str(citation.get("marker", ""))),
                          Text(verdict, style=VERDICT_STYLES.get(verdict, "")),
                          _source_label(sources.get(citation.get("source_index")),
                                        citation.get("source_index")), why)
    parts: list[RenderableType] = [_headline(data), table]
    for problem in data.get("problems") or []:
        if isinstance(problem, Mapping):
            parts.append(Text(f"problem {problem.get('code')}: {problem.get('message')}",
                              style="yellow"))
    return Group(*parts)
