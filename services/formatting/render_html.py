"""The HTML rendering, safe by construction.

Every piece of answer or source text is escaped (`escape_html`; the answer text in one
pass); every tag comes from a template built by `allowlist.start_tag` (checked against
the allow-list at import); the only URLs emitted are `safe_url` results
(http/https/mailto) and in-page `#` anchors. No scripts, styles or event handlers:
verbatim units are made focusable with `role="button"` and `tabindex`, and the frontend
attaches behaviour by class.
"""

from __future__ import annotations

from schemas.citations import Citation
from schemas.formatted import FormattedSource
from services.formatting.allowlist import LINK_REL, end_tag, start_tag
from services.formatting.escaping import escape_attribute, escape_html, escape_html_many
from services.formatting.layout import AnswerLayout, UnitRange

_ROOT = start_tag("div", {"class": "citeflow-answer", "data-answer-id": None})
_TEXT = start_tag("div", {"class": "answer-text"})
_DIV_END = end_tag("div")
_BR = start_tag("br") + "\n"

# fields: href, title, data-citation-id, data-source-index, label
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
    + "[%s]"
    + end_tag("a")
    + end_tag("sup")
)
# fields: title, data-citation-id, data-source-index, label
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
    + "[%s]"
    + end_tag("sup")
)
_INVALID_TITLE = "This citation does not match a source"

# fields: unit id, source index, doc id, section id, chunk id, span start, end, count
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
# fields: unit id, kind
_OTHER_UNIT = start_tag(
    "span", {"class": "unit unit-derived", "data-unit-id": None, "data-kind": None}
)
_UNIT_END = end_tag("span")

_REFERENCES = start_tag("ol", {"class": "references"})
_REFERENCES_END = end_tag("ol")
# fields: id, value, data-source-index
_REFERENCE = start_tag(
    "li", {"class": "reference", "id": None, "value": None, "data-source-index": None}
) + start_tag("cite", {"class": "reference-text"})
_REFERENCE_TEXT_END = end_tag("cite")
# fields: href, text
_REFERENCE_LINK = (
    " "
    + start_tag(
        "a", {"class": "reference-link", "href": None, "rel": LINK_REL, "target": "_blank"}
    )
    + "%s"
    + end_tag("a")
)
_REFERENCE_END = end_tag("li")


def render_html(layout: AnswerLayout) -> str:
    """The answer as an HTML fragment: text with units and citation chips, then the
    reference list of the cited sources."""
    anchor = escape_html(f"citeflow-{layout.answer_id}-ref-")
    text = layout.text
    sources = layout.sources
    cited = layout.cited
    # the title and reference of every cited source, escaped in one pass
    escaped = escape_html_many(
        [sources[i].title or sources[i].reference for i in cited]
        + [sources[i].reference for i in cited]
    )
    titles = dict(zip(cited, escaped))
    references = dict(zip(cited, escaped[len(cited) :]))
    markup = [_ROOT % escape_html(layout.answer_id), _TEXT]
    pieces: list[str] = []  # raw answer text, escaped in one pass at the end
    slots: list[int] = []  # where each piece goes in `markup`
    cursor = 0
    for position, resume, insert in _insertions(layout, _Chips(sources, titles, anchor)):
        if position > cursor:
            slots.append(len(markup))
            pieces.append(text[cursor:position])
            markup.append("")
        markup.append(insert)
        cursor = resume
    if len(text) > cursor:
        slots.append(len(markup))
        pieces.append(text[cursor:])
        markup.append("")
    for slot, escaped in zip(slots, escape_html_many(pieces, _BR)):
        markup[slot] = escaped
    markup.append(_DIV_END)
    if cited:
        markup.append(_REFERENCES)
        for index in cited:
            _reference(markup, sources[index], references[index], anchor)
        markup.append(_REFERENCES_END)
    markup.append(_DIV_END)
    return "".join(markup)


def _insertions(layout: AnswerLayout, chips: _Chips) -> list[tuple[int, int, str]]:
    """(position, where the text resumes, markup) for every unit start and end and every
    marker, in text order. A unit boundary never falls strictly inside a marker, and at
    one position unit boundaries come first (a unit ending there closes before a marker
    after it; a unit starting there opens around the marker)."""
    markers = layout.markers
    found: list[tuple[int, int, str]] = []
    memo: dict[str, str] = {}
    next_marker = 0
    count = len(markers)
    for unit_range in layout.units:
        for boundary, insert in (
            (unit_range.start, _unit_start(unit_range, memo)),
            (unit_range.end, _UNIT_END),
        ):
            while next_marker < count and markers[next_marker].start < boundary:
                marker = markers[next_marker]
                found.append((marker.start, marker.end, chips.render(marker.citations)))
                next_marker += 1
            found.append((boundary, boundary, insert))
    for marker in markers[next_marker:]:
        found.append((marker.start, marker.end, chips.render(marker.citations)))
    return found


class _Chips:
    """Citation chips, built once per distinct (citation id, source, validity, problem)."""

    __slots__ = ("_cache", "_titles", "_anchor")

    def __init__(self, sources: dict[int, FormattedSource], titles: dict[int, str],
                 anchor: str) -> None:
        """`titles`: the escaped chip title of each source a valid citation may link to."""
        self._cache: dict[tuple[int, int | None, bool, str | None], str] = {}
        self._titles = titles
        self._anchor = anchor

    def render(self, citations: list[Citation]) -> str:
        if len(citations) == 1:
            return self._chip(citations[0])
        return "".join([self._chip(citation) for citation in citations])

    def _chip(self, citation: Citation) -> str:
        key = (citation.id, citation.source_index, citation.valid, citation.problem)
        chip = self._cache.get(key)
        if chip is None:
            chip = self._cache[key] = self._build(citation)
        return chip

    def _build(self, citation: Citation) -> str:
        index = citation.source_index
        if citation.valid and index in self._titles:
            title = self._titles[index]
            return _CHIP % (f"#{self._anchor}{index}", title, citation.id, index, citation.id)
        return _INVALID_CHIP % (
            escape_html(citation.problem or _INVALID_TITLE),
            citation.id,
            "" if index is None else index,
            citation.id,
        )


def _unit_start(unit_range: UnitRange, escaped: dict[str, str]) -> str:
    """The opening tag of a unit; `escaped` memoises attribute values shared by units."""
    unit = unit_range.unit
    if not unit_range.clickable:
        return _OTHER_UNIT % (escape_attribute(unit.id), unit.kind)
    span = unit.source_spans[0]
    return _VERBATIM_UNIT % (
        escape_attribute(unit.id),
        span.source_index,
        _memo(escaped, span.doc_id or ""),
        _memo(escaped, span.section_id),
        _memo(escaped, span.chunk_id or ""),
        span.start_char,
        span.end_char,
        len(unit.source_spans),
    )


def _memo(escaped: dict[str, str], value: str) -> str:
    found = escaped.get(value)
    if found is None:
        found = escaped[value] = escape_attribute(value)
    return found


def _reference(markup: list[str], source: FormattedSource, reference: str, anchor: str) -> None:
    """One reference list item; `reference` is the escaped reference text."""
    index = source.index
    markup.append(_REFERENCE % (f"{anchor}{index}", index, index))
    markup.append(reference)
    markup.append(_REFERENCE_TEXT_END)
    if source.safe_url:
        url = escape_html(source.safe_url)
        markup.append(_REFERENCE_LINK % (url, url))
    markup.append(_REFERENCE_END)
