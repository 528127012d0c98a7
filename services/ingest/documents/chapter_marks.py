"""Marking a quoted passage in a sanitised EPUB chapter, server-side.

The chapter's HTML is already clean (`sanitize.clean_html`); it is parsed, its text nodes
are laid end to end the way a reader sees them (a space between blocks), the quote is found
there (`quote_match.find_quote`: the normalisation of span resolution, prefix/suffix to
choose among occurrences) and every text piece inside the match is wrapped in its own
`<mark data-citeflow-highlight>`, so a quote that crosses element boundaries (emphasis,
links, paragraphs) is marked piece by piece without moving any element. Marks are added
after sanitising, so a chapter can never bring marks of its own (`mark` is not allowed).

Images (already pointed at the gateway's resource route by the sanitiser) move from `src` to
`data-citeflow-src`: the viewer fetches them with its key, so the browser never requests
one unauthenticated while the chapter is inserted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import lxml.html
from lxml import etree

from services.ingest.documents.quote_match import Found, SearchText, find_quote
from services.ingest.documents.xhtml import BLOCK_TAGS, LINE_TAGS

MARK_ATTRIBUTE = "data-citeflow-highlight"
DEFERRED_SRC = "data-citeflow-src"
_BREAKS = frozenset(BLOCK_TAGS) | frozenset(LINE_TAGS) | {"img"}


@dataclass
class _Slot:
    """A text node: `element.text` (kind "text") or `element.tail` (kind "tail"), placed at
    `start` in the laid-out text."""

    element: Any
    kind: str
    start: int
    value: str


def _layout(root: Any) -> tuple[str, list[_Slot]]:
    """The chapter's text with a space at every block or line boundary, and its text nodes."""
    pieces: list[str] = []
    slots: list[_Slot] = []
    length = 0

    def emit(element: Any, kind: str, value: str | None) -> None:
        nonlocal length
        if value:
            slots.append(_Slot(element, kind, length, value))
            pieces.append(value)
            length += len(value)

    def gap() -> None:
        nonlocal length
        pieces.append(" ")
        length += 1

    def walk(element: Any) -> None:
        block = element.tag in _BREAKS
        if block:
            gap()
        emit(element, "text", element.text)
        for child in element:
            if isinstance(child.tag, str):
                walk(child)
            emit(child, "tail", child.tail)
        if block:
            gap()

    walk(root)
    return "".join(pieces), slots


def _wrap(slot: _Slot, start: int, end: int) -> None:
    """Wrap `slot.value[start:end]` in a mark, in place."""
    mark = etree.Element("mark")
    mark.set(MARK_ATTRIBUTE, "")
    mark.text = slot.value[start:end]
    mark.tail = slot.value[end:] or None
    if slot.kind == "text":
        slot.element.text = slot.value[:start] or None
        slot.element.insert(0, mark)
    else:
        slot.element.tail = slot.value[:start] or None
        slot.element.addnext(mark)


def _mark(slots: list[_Slot], found: Found) -> int:
    """Wrap every non-blank text piece inside the match; return how many marks were made."""
    marks = 0
    for slot in slots:
        low = max(found.start, slot.start) - slot.start
        high = min(found.end, slot.start + len(slot.value)) - slot.start
        if low < high and slot.value[low:high].strip():
            _wrap(slot, low, high)
            marks += 1
    return marks


def _defer_images(root: Any) -> None:
    for img in root.iter("img"):
        source = img.attrib.pop("src", None)
        if source:
            img.set(DEFERRED_SRC, source)


def prepare_chapter(
    html: str, exact: str | None = None, prefix: str = "", suffix: str = ""
) -> tuple[str, dict[str, Any] | None]:
    """The clean chapter HTML with images deferred and, given a quote, the quote marked;
    with `{found, match, confidence, marks, occurrences, note}` saying what happened (None
    without a quote; found false: nothing is marked)."""
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    _defer_images(root)
    outcome: dict[str, Any] | None = None
    if exact is not None:
        text, slots = _layout(root)
        found = find_quote(text, exact, prefix, suffix)
        marks = _mark(slots, found) if found is not None else 0
        outcome = {"found": False, "match": None, "confidence": 0.0, "marks": 0,
                   "occurrences": found.occurrences if found else 0,
                   "note": "passage not located in this chapter"}
        if found is not None and marks:
            outcome.update(found=True, match=found.match, confidence=found.confidence,
                           marks=marks, note=None)
    inner = (root.text or "") + "".join(
        etree.tostring(child, method="html", encoding="unicode") for child in root
    )
    return inner, outcome


def chapter_of_quote(
    texts: list[tuple[str, SearchText]], exact: str, prefix: str = "", suffix: str = "",
    skip: str | None = None,
) -> str | None:
    """The href of the first chapter (spine order) whose reading text holds the quote
    exactly (normalised), other than `skip`: where to look when the hinted chapter is wrong."""
    for href, searched in texts:
        if href != skip and find_quote(searched, exact, prefix, suffix, approximate=False):
            return href
    return None
