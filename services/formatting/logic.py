"""The formatting stage's logic: `answer.resolved` to `answer.formatted`.

Everything upstream already validated is passed through as is (the same objects; the parts
this stage only copies are taken with `passed_on`, so a record read lazily hands them on as
the JSON they arrived as, and the lists it reads are read as that JSON too:
schemas.rows); the envelope objects built here are made with
`schemas.construct`, so nothing is validated a second time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemas.answers import RenderingName
from schemas.construct import maker
from schemas.formatted import (
    AnswerFormatted,
    AnswerUnits,
    FormattedCitation,
    FormattedSource,
    Renderings,
)
from schemas.rows import Row, members, rows
from schemas.spans import AnswerResolved
from schemas.trusted import passed_on
from services.formatting.config import configured_marks
from services.formatting.escaping import has_controls
from services.formatting.layout import (
    AnswerLayout,
    marker_ranges,
    text_pieces,
    unit_ranges,
)
from services.formatting.missing import markable, unsupported_words
from services.formatting.render_html import render_html
from services.formatting.render_markdown import render_markdown
from services.formatting.render_plain import render_plain
from services.text.languages import describe
from services.formatting.sources import format_sources

RENDERERS: dict[RenderingName, Callable[[AnswerLayout], str]] = {
    "markdown": render_markdown,
    "html": render_html,
    "plain": render_plain,
}
# Every field given, from validated upstream models or built here: no validation.
_answer_formatted = maker(AnswerFormatted)
_answer_units = maker(AnswerUnits)
_all_renderings = maker(Renderings)
_formatted_citation = maker(FormattedCitation)


def format_answer(
    resolved: AnswerResolved, marked: frozenset[str] | None = None
) -> AnswerFormatted:
    """The formatted answer: the extraction's structure, the resolved units and links,
    the sources with scores and references, all problems, and the renderings asked for;
    those named in `marked` (default: `CITEFLOW_MARK_MISSING`, services.formatting.config)
    mark the answer's unsupported words."""
    answer = resolved.answer
    extraction = resolved.extraction
    resolution = resolved.resolution
    # (each list read once: read again, its bytes would be parsed again)
    citations = rows(extraction, "citations")
    support = members(resolution, "support")
    sources = format_sources(answer.sources, rows(resolved, "scores"), extraction, citations)
    requested = answer.effective_options().renderings
    language, script, direction = describe(answer.text)
    renderings = (
        render_all(
            build_layout(resolved, sources, language, direction,
                         configured_marks() if marked is None else marked,
                         citations, support),
            requested,
        )
        if requested
        else {}
    )
    return _answer_formatted(
        {
            "answer_id": answer.answer_id,
            "query": answer.query,
            "text": answer.text,
            "citations": with_support(citations, support),
            "clusters": passed_on(extraction, "clusters"),
            "sentences": passed_on(extraction, "sentences"),
            "citation_map": passed_on(extraction, "citation_map"),
            "sentence_map": passed_on(extraction, "sentence_map"),
            "segments": passed_on(extraction, "segments"),
            "answer_units": _answer_units({"units": passed_on(resolution, "units")}),
            "sources": sources,
            "links": passed_on(resolution, "links"),
            "coverage": passed_on(extraction, "coverage"),
            "problems": [*members(extraction, "problems"), *members(resolution, "problems")],
            "renderings": _renderings(renderings),
            "metadata": answer.metadata,
            "quality": passed_on(resolution, "quality"),
            "language": language,
            "script": script,
            "direction": direction,
        }
    )


def with_support(citations: list[Row], support: list[Any]) -> list[FormattedCitation]:
    """The citations (their `rows`), each with its support verdict (the spans stage's
    entry at the same position, as `members` gives it; none for an invalid citation, or
    when an older event carries no verdicts)."""
    extra = len(citations) - len(support)
    entries = support + [None] * extra if extra > 0 else support
    found: list[FormattedCitation] = []
    for citation, entry in zip(citations, entries):
        values = citation.copy()  # a copy of the whole table: cheaper than a merge
        values["support"] = entry
        found.append(_formatted_citation(values))
    return found


def _renderings(rendered: dict[str, str]) -> Renderings:
    """The renderings model; those not asked for stay unset, as `model_construct`
    leaves them."""
    if rendered.keys() == RENDERERS.keys():
        return _all_renderings(
            {name: rendered[name] for name in Renderings.model_fields}
        )
    return Renderings.model_construct(None, **rendered)


def build_layout(
    resolved: AnswerResolved,
    sources: list[FormattedSource],
    language: str = "und",
    direction: str = "ltr",
    marked: frozenset[str] = frozenset(),
    citations: list[Row] | None = None,
    support: list[Any] | None = None,
) -> AnswerLayout:
    """Markers, units, text pieces and per-source data of one answer, shared by its
    renderings; with the unsupported words when a rendering in `marked` marks them.
    `citations` and `support`: the extraction's citation `rows` and the resolution's
    support `members`, when the caller has read them already."""
    text = resolved.answer.text
    extraction = resolved.extraction
    resolution = resolved.resolution
    by_index = {source.index: source for source in sources}
    if citations is None:
        citations = rows(extraction, "citations")
    markers = marker_ranges(len(text), citations, rows(extraction, "clusters"))
    units = unit_ranges(len(text), rows(resolution, "units"), markers)
    words = (
        unsupported_words(
            citations, members(resolution, "support") if support is None else support
        )
        if marked
        else []
    )
    # the sources linkable citations cite (see `is_linkable`)
    cited = sorted(
        by_index.keys() & {key[1] for group in set(markers.groups) for key in group if key[2]}
    )
    return AnswerLayout(
        answer_id=resolved.answer.answer_id,
        text=text,
        clean=not has_controls(text),
        markers=markers,
        pieces=text_pieces(text, markers),
        units=units,
        sources=by_index,
        cited=cited,
        language=language,
        direction=direction,
        missing=markable(words, len(text), markers.starts, markers.ends, units.bounds)
        if words
        else words,
        marked=marked,
    )


def render_all(layout: AnswerLayout, requested: list[RenderingName]) -> dict[str, str]:
    """Each requested rendering of the answer, by name."""
    return {name: RENDERERS[name](layout) for name in dict.fromkeys(requested)}
