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
from services.formatting.allowlist import LINK_REL, end_tag, start_tag
from services.formatting.escaping import escape_html, escape_html_many
from services.formatting.layout import AnswerLayout, UnitRange
from services.formatting.sources import reference_link

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
            "data-citation-id": int,
            "data-source-index": int,
            "data-valid": "true",
        },
    )
    + "[%d]"
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
            "data-citation-id": int,
            "data-source-index": None,
            "data-valid": "false",
        },
    )
    + "[%d]"
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
        "data-source-index": int,
        "data-doc-id": None,
        "data-section-id": None,
        "data-chunk-id": None,
        "data-span-start": int,
        "data-span-end": int,
        "data-span-count": int,
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
    "li", {"class": "reference", "id": None, "value": int, "data-source-index": int}
) + start_tag("cite", {"class": "reference-text"})
# fields: href, text
_REFERENCE_LINK = (
    start_tag(
        "a",
        {"class": "reference-link", "href": None, "rel": LINK_REL, "target": "_blank"},
    )
    + "%s"
    + end_tag("a")
)
_REFERENCE_END = end_tag("cite") + end_tag("li")


def render_html(layout: AnswerLayout) -> str:
    """The answer as an HTML fragment: text with units and citation chips, then the
    reference list of the cited sources."""
    anchor = escape_html(f"citeflow-{layout.answer_id}-ref-")
    sources = layout.sources
    cited = layout.cited
    # chip titles and the reference texts around their links, escaped in one pass
    links = [reference_link(sources[i]) for i in cited]
    escaped = escape_html_many(
        [sources[i].title or sources[i].reference for i in cited]
        + [part for before, _, after in links for part in (before, after)]
    )
    titles = dict(zip(cited, escaped))
    pieces, inserts = _split(layout, _Chips(titles, anchor))
    body: list[str] = [""] * (2 * len(inserts) + 1)
    body[0::2] = escape_html_many(pieces, _BR)
    body[1::2] = inserts
    markup = [_ROOT % escape_html(layout.answer_id), _TEXT, *body, _DIV_END]
    if cited:
        markup.append(_REFERENCES)
        for position, index in enumerate(cited):
            before, after = escaped[
                len(cited) + 2 * position : len(cited) + 2 * position + 2
            ]
            _reference(markup, index, before, links[position][1], after, anchor)
        markup.append(_REFERENCES_END)
    markup.append(_DIV_END)
    return "".join(markup)


def _split(layout: AnswerLayout, chips: _Chips) -> tuple[list[str], list[str]]:
    """The answer text cut at every unit start and end and every marker: the raw text
    pieces (one more than the inserts) and the markup inserted between them.

    A unit boundary never falls strictly inside a marker; at one position unit
    boundaries come first (a unit ending there closes before a marker after it, a unit
    starting there opens around the marker)."""
    text = layout.text
    markers = layout.markers
    tags = _unit_tags(layout.units)
    # positions with a sentinel each: past the text for unit boundaries, further for markers
    boundaries = [p for u in layout.units for p in (u.start, u.end)]
    boundaries.append(len(text) + 1)
    starts = [marker.start for marker in markers]
    starts.append(len(text) + 2)
    ends = [marker.end for marker in markers]
    marker_chips = [chips.render(marker.citations) for marker in markers]
    pieces: list[str] = []
    inserts: list[str] = []
    cursor = boundary = marker = 0
    for _ in range(len(tags) + len(markers)):
        position = boundaries[boundary]
        if position <= starts[marker]:
            pieces.append(text[cursor:position])
            inserts.append(tags[boundary])
            cursor = position
            boundary += 1
        else:
            pieces.append(text[cursor : starts[marker]])
            inserts.append(marker_chips[marker])
            cursor = ends[marker]
            marker += 1
    pieces.append(text[cursor:])
    return pieces, inserts


def _unit_tags(units: list[UnitRange]) -> list[str]:
    """The opening and closing tag of every unit, in order, their untrusted attribute
    values escaped in one pass."""
    values: list[str] = []
    for unit_range in units:
        values.append(unit_range.unit.id)
        if not unit_range.clickable:
            values.append(unit_range.unit.kind)
        else:
            span = unit_range.unit.source_spans[0]
            values.append(span.doc_id or "")
            values.append(span.section_id)
            values.append(span.chunk_id or "")
    escaped = iter(escape_html_many(values))
    tags: list[str] = []
    for unit_range in units:
        unit = unit_range.unit
        if unit_range.clickable:
            span = unit.source_spans[0]
            tags.append(
                _VERBATIM_UNIT
                % (
                    next(escaped),
                    span.source_index,
                    next(escaped),
                    next(escaped),
                    next(escaped),
                    span.start_char,
                    span.end_char,
                    len(unit.source_spans),
                )
            )
        else:
            tags.append(_OTHER_UNIT % (next(escaped), next(escaped)))
        tags.append(_UNIT_END)
    return tags


class _Chips:
    """Citation chips, built once per distinct (citation id, source, validity, problem)."""

    __slots__ = ("_anchor", "_cache", "_titles")

    def __init__(self, titles: dict[int, str], anchor: str) -> None:
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
            return _CHIP % (
                f"#{self._anchor}{index:d}",
                title,
                citation.id,
                index,
                citation.id,
            )
        return _INVALID_CHIP % (
            escape_html(citation.problem or _INVALID_TITLE),
            citation.id,
            "" if index is None else f"{index:d}",
            citation.id,
        )


def _reference(
    markup: list[str],
    index: int,
    before: str,
    link: str | None,
    after: str,
    anchor: str,
) -> None:
    """One reference list item: the escaped reference text around its link, if any."""
    markup.append(_REFERENCE % (f"{anchor}{index:d}", index, index))
    markup.append(before)
    if link:
        url = escape_html(link)
        markup.append(_REFERENCE_LINK % (url, url))
    markup.append(after)
    markup.append(_REFERENCE_END)
