"""The HTML rendering, safe by construction.

Every piece of answer or source text is escaped (`escape_html`; the answer text in one
pass); every tag comes from a template built by `allowlist.start_tag` (checked against
the allow-list at import); the only URLs emitted are `safe_url` results
(http/https/mailto) and in-page `#` anchors. No scripts, styles or event handlers:
verbatim units are made focusable with `role="button"` and `tabindex`, and the frontend
attaches behaviour by class.
"""

from __future__ import annotations

from typing import Any

from schemas.rows import Row, row
from services.formatting.allowlist import LINK_REL, end_tag, start_tag
from services.formatting.escaping import escape_html, escape_html_many
from services.formatting.layout import AnswerLayout, CitationKey, cut
from services.formatting.sources import reference_link

# fields: answer id, direction, language
_ROOT = start_tag(
    "div", {"class": "citeflow-answer", "data-answer-id": None, "dir": None, "lang": None}
)
_TEXT = start_tag("div", {"class": "answer-text"})
_DIV_END = end_tag("div")
_BR = start_tag("br") + "\n"

# fields: href, title, data-citation-id, data-source-index, label
# A chip is isolated left to right (`dir` on an inline element isolates it), so `[3]`
# stays whole beside right-to-left text.
_CHIP = (
    start_tag("sup", {"class": "citation-chip", "dir": "ltr"})
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
            "dir": "ltr",
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
# An unsupported word of the answer (services.formatting.missing): a page styles it.
_MISSING = start_tag("span", {"class": "cf-missing", "title": "Not in the cited source"})
_MISSING_END = end_tag("span")

_REFERENCES = start_tag("ol", {"class": "references"})
_REFERENCES_END = end_tag("ol")
# fields: id, value, data-source-index
_REFERENCE = start_tag(
    "li", {"class": "reference", "id": None, "value": int, "data-source-index": int}
) + start_tag("cite", {"class": "reference-text"})
# Each untrusted piece of a reference is isolated: no direction spills from the title into
# the URL after it. A URL reads left to right.
_PIECE = start_tag("bdi") + "%s" + end_tag("bdi")
# fields: href, text
_REFERENCE_LINK = (
    start_tag(
        "a",
        {"class": "reference-link", "dir": "ltr", "href": None, "rel": LINK_REL,
         "target": "_blank"},
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
    pieces, inserts = _split(
        layout,
        _marker_chips(layout.markers.groups, titles, anchor),
        layout.missing if "html" in layout.marked else [],
    )
    body: list[str] = [""] * (2 * len(inserts) + 1)
    body[0::2] = escape_html_many(pieces, _BR, clean=layout.clean)
    body[1::2] = inserts
    root = _ROOT % (escape_html(layout.answer_id), layout.direction, layout.language)
    markup = [root, _TEXT]
    markup += body
    markup.append(_DIV_END)
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


def _split(
    layout: AnswerLayout, chips: list[str], words: list[tuple[int, int]]
) -> tuple[list[str], list[str]]:
    """The answer text cut at every unit start and end, every marker and every edge of an
    unsupported word to mark (`words`, from `missing.markable`): the raw text pieces (one
    more than the inserts) and the markup inserted between them.

    A unit boundary never falls strictly inside a marker, and no marker or unit boundary
    strictly inside a word. At one position, a word ending there closes first, then unit
    boundaries come (a unit ending there closes before a marker after it, a unit starting
    there opens around the marker), then markers, and a word starting there opens last:
    a stable sort of the positions keeps that order, and each unit's end before the next
    one's start. A word's edges are cuts of no width, their inserts its tags (one cut pass
    instead of marking the text and cutting it again)."""
    markers = layout.markers
    bounds = layout.units.bounds
    inserts = _unit_tags(layout.units.units) + chips
    starts = bounds + markers.starts
    resumes = bounds + markers.ends
    if words:
        word_starts = [start for start, _ in words]
        word_ends = [end for _, end in words]
        starts = word_ends + starts + word_starts
        resumes = word_ends + resumes + word_starts
        inserts = [_MISSING_END] * len(words) + inserts + [_MISSING] * len(words)
    order = sorted(range(len(starts)), key=starts.__getitem__)
    pieces = cut(
        layout.text,
        list(map(starts.__getitem__, order)),
        list(map(resumes.__getitem__, order)),
    )
    return pieces, list(map(inserts.__getitem__, order))


def _unit_tags(units: list[Row]) -> list[str]:
    """The opening and closing tag of every unit (`rows`), in order, their untrusted
    attribute values escaped in one pass."""
    values: list[str] = []
    # per unit, its first source span's fields and how many spans it has (None: not verbatim)
    spans: list[tuple[dict[str, Any], int] | None] = []
    for unit in units:
        values.append(unit["id"])
        source_spans = unit["source_spans"]
        if unit["kind"] == "verbatim" and source_spans:
            span = row(source_spans[0])
            spans.append((span, len(source_spans)))
            values.append(span["doc_id"] or "")
            values.append(span["section_id"])
            values.append(span["chunk_id"] or "")
        else:
            spans.append(None)
            values.append(unit["kind"])
    escaped = iter(escape_html_many(values))
    tags: list[str] = []
    for placed in spans:
        if placed is not None:
            span, count = placed
            tags.append(
                _VERBATIM_UNIT
                % (
                    next(escaped),
                    span["source_index"],
                    next(escaped),
                    next(escaped),
                    next(escaped),
                    span["start_char"],
                    span["end_char"],
                    count,
                )
            )
        else:
            tags.append(_OTHER_UNIT % (next(escaped), next(escaped)))
        tags.append(_UNIT_END)
    return tags


def _marker_chips(
    groups: list[tuple[CitationKey, ...]], titles: dict[int, str], anchor: str
) -> list[str]:
    """The chips of every marker, each distinct citation's built once.

    `titles`: the escaped chip title of each source a valid citation may link to."""
    chip = {key: _chip(key, titles, anchor) for key in {k for g in groups for k in g}}
    distinct = {group: "".join(map(chip.__getitem__, group)) for group in set(groups)}
    return list(map(distinct.__getitem__, groups))


def _chip(key: CitationKey, titles: dict[int, str], anchor: str) -> str:
    """The chip of one citation: a link to its reference, or marked invalid."""
    citation_id, index, valid, problem = key
    if valid and index in titles:
        return _CHIP % (
            f"#{anchor}{index:d}",
            titles[index],
            citation_id,
            index,
            citation_id,
        )
    return _INVALID_CHIP % (
        escape_html(problem or _INVALID_TITLE),
        citation_id,
        "" if index is None else f"{index:d}",
        citation_id,
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
    if before:
        markup.append(_PIECE % before)
    if link:
        url = escape_html(link)
        markup.append(_REFERENCE_LINK % (url, url))
    if after:
        markup.append(_PIECE % after)
    markup.append(_REFERENCE_END)
