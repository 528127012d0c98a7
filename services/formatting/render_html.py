"""The HTML rendering, safe by construction.

Every piece of answer or source text goes through `escape_html`; every tag comes from a
template built by `allowlist.start_tag` (checked against the allow-list at import); the
only URLs emitted are `safe_url` results (http/https/mailto) and in-page `#` anchors.
No scripts, styles or event handlers: verbatim units are made focusable with
`role="button"` and `tabindex`, and the frontend attaches behaviour by class.
"""

from __future__ import annotations

from schemas.formatted import FormattedSource
from services.formatting.allowlist import LINK_REL, end_tag, start_tag
from services.formatting.escaping import escape_html
from services.formatting.layout import AnswerLayout, MarkerRange, UnitRange, is_linkable

_ROOT = start_tag("div", {"class": "citeflow-answer", "data-answer-id": None})
_TEXT = start_tag("div", {"class": "answer-text"})
_DIV_END = end_tag("div")
_BR = start_tag("br") + "\n"

_CHIP = (
    start_tag("sup", {"class": "citation-chip"})
    + start_tag(
        "a",
        {
            "class": "citation",
            "href": None,
            "title": None,
            "data-citation-id": None,
            "data-source-index": None,
            "data-valid": "true",
        },
    )
    + "[{label}]"
    + end_tag("a")
    + end_tag("sup")
)
_INVALID_CHIP = (
    start_tag(
        "sup",
        {
            "class": "citation-chip citation citation-invalid",
            "title": None,
            "data-citation-id": None,
            "data-source-index": None,
            "data-valid": "false",
        },
    )
    + "[{label}]"
    + end_tag("sup")
)

_VERBATIM_UNIT = start_tag(
    "span",
    {
        "class": "unit unit-verbatim",
        "role": "button",
        "tabindex": "0",
        "title": "Show the quoted passage in its source",
        "data-unit-id": None,
        "data-kind": "verbatim",
        "data-source-index": None,
        "data-doc-id": None,
        "data-section-id": None,
        "data-chunk-id": None,
        "data-span-start": None,
        "data-span-end": None,
        "data-span-count": None,
    },
)
_DERIVED_UNIT = start_tag(
    "span", {"class": "unit unit-derived", "data-unit-id": None, "data-kind": None}
)
_UNIT_END = end_tag("span")

_REFERENCES = start_tag("ol", {"class": "references"})
_REFERENCES_END = end_tag("ol")
_REFERENCE = start_tag(
    "li", {"class": "reference", "id": None, "value": None, "data-source-index": None}
) + start_tag("cite", {"class": "reference-text"})
_REFERENCE_TEXT_END = end_tag("cite")
_REFERENCE_LINK = (
    start_tag(
        "a", {"class": "reference-link", "href": None, "rel": LINK_REL, "target": "_blank"}
    )
    + "{text}"
    + end_tag("a")
)
_REFERENCE_END = end_tag("li")


def render_html(layout: AnswerLayout) -> str:
    """The answer as an HTML fragment: text with units and citation chips, then the
    reference list of the cited sources."""
    text = layout.text
    anchor_prefix = f"citeflow-{layout.answer_id}-ref-"
    chips = _Chips(layout, escape_html(anchor_prefix))
    out: list[str] = [_ROOT.format(data_answer_id=escape_html(layout.answer_id)), _TEXT]
    markers = layout.markers
    position = 0
    cursor = 0
    for unit_range in layout.units:
        position = _emit(out, text, markers, position, cursor, unit_range.start, chips)
        out.append(_unit_start(unit_range))
        position = _emit(out, text, markers, position, unit_range.start, unit_range.end, chips)
        out.append(_UNIT_END)
        cursor = unit_range.end
    _emit(out, text, markers, position, cursor, len(text), chips)
    out.append(_DIV_END)
    if layout.cited:
        out.append(_REFERENCES)
        for index in layout.cited:
            _reference(out, layout.sources[index], anchor_prefix)
        out.append(_REFERENCES_END)
    out.append(_DIV_END)
    return "".join(out)


class _Chips:
    """Citation chips, built once per distinct (citation id, source, validity, problem)."""

    __slots__ = ("_cache", "_sources", "_href_prefix")

    def __init__(self, layout: AnswerLayout, href_prefix: str) -> None:
        self._cache: dict[tuple[int, int | None, bool, str | None], str] = {}
        self._sources = layout.sources
        self._href_prefix = href_prefix

    def render(self, marker: MarkerRange) -> str:
        parts = []
        for citation in marker.citations:
            linkable = is_linkable(citation, self._sources)
            key = (citation.id, citation.source_index, linkable, citation.problem)
            chip = self._cache.get(key)
            if chip is None:
                chip = self._cache[key] = self._build(citation.id, citation.source_index,
                                                      linkable, citation.problem)
            parts.append(chip)
        return "".join(parts)

    def _build(self, cid: int, source_index: int | None, linkable: bool,
               problem: str | None) -> str:
        if linkable and source_index is not None:
            source = self._sources[source_index]
            return _CHIP.format(
                href=f"#{self._href_prefix}{source_index}",
                title=escape_html(source.title or source.reference),
                data_citation_id=cid,
                data_source_index=source_index,
                label=cid,
            )
        return _INVALID_CHIP.format(
            title=escape_html(problem or "This citation does not match a source"),
            data_citation_id=cid,
            data_source_index="" if source_index is None else source_index,
            label=cid,
        )


def _emit(out: list[str], text: str, markers: list[MarkerRange], position: int,
          start: int, end: int, chips: _Chips) -> int:
    """Append text[start:end] with its markers as chips; returns the next marker position."""
    cursor = start
    while position < len(markers) and markers[position].end <= end:
        marker = markers[position]
        if marker.start > cursor:
            out.append(_text(text[cursor:marker.start]))
        out.append(chips.render(marker))
        cursor = marker.end
        position += 1
    if end > cursor:
        out.append(_text(text[cursor:end]))
    return position


def _text(piece: str) -> str:
    escaped = escape_html(piece)
    return escaped.replace("\n", _BR) if "\n" in escaped else escaped


def _unit_start(unit_range: UnitRange) -> str:
    unit = unit_range.unit
    if not unit_range.clickable:
        return _DERIVED_UNIT.format(
            data_unit_id=escape_html(unit.id), data_kind=escape_html(unit.kind)
        )
    span = unit.source_spans[0]
    return _VERBATIM_UNIT.format(
        data_unit_id=escape_html(unit.id),
        data_source_index=span.source_index,
        data_doc_id=escape_html(span.doc_id or ""),
        data_section_id=escape_html(span.section_id),
        data_chunk_id=escape_html(span.chunk_id or ""),
        data_span_start=span.start_char,
        data_span_end=span.end_char,
        data_span_count=len(unit.source_spans),
    )


def _reference(out: list[str], source: FormattedSource, anchor_prefix: str) -> None:
    out.append(
        _REFERENCE.format(
            id=escape_html(f"{anchor_prefix}{source.index}"),
            value=source.index,
            data_source_index=source.index,
        )
    )
    out.append(escape_html(source.reference))
    out.append(_REFERENCE_TEXT_END)
    if source.safe_url:
        url = escape_html(source.safe_url)
        out.append(" ")
        out.append(_REFERENCE_LINK.format(href=url, text=url))
    out.append(_REFERENCE_END)
