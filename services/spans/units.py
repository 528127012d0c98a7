"""Answer units: upstream ones resolved (or downgraded), or units derived from sentences.

Upstream units (`answer_units`): a verbatim unit's quote (its `quote`, else its text without
citation markers) is searched in the chunks of the unit's own sources and, when it is not
there, in all other chunks; found, it keeps `verbatim` with a span per section where it
occurs; not found, it is downgraded to `derived` with its sources as `supporting_sources` and,
when there is one, the closest approximate match as a diagnostic. A quote without a letter
or digit (empty, whitespace, punctuation) is downgraded without a search (`quote_too_short`).

`supporting_sources` name sources by `source_ref`: `source_id`, else `doc_id`, else the index
as a string.

Without upstream units, each sentence is a unit. Its text without citation markers (or,
failing that, without its final punctuation) found in a chunk makes it verbatim (origin
"sentence"); else each quotation inside it (in the quotation marks of any language) of at
least `MIN_WORDS` words, or `MIN_CHARS` characters of a script written without spaces, that is
found gives it a span (origin "quotation"); else it is derived, supported by the sources it
validly cites.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schemas.answers import AnswerSubmitted, AnswerUnitIn
from schemas.base import Problem
from schemas.citations import CitationExtraction
from schemas.construct import maker
from schemas.rows import Row, field_tables, rows
from schemas.spans import AnswerUnit, ApproximateMatch, SourceSpan
from services.spans.closest import closest_match
from services.spans.locators import Locators
from services.spans.markers import MarkerStripper
from services.spans.resolve import resolve_quote
from services.spans.search import QuoteFinder
from services.spans.sections import (
    Piece,
    SectionIndex,
    same_offset,
    source_ref,
    utf16_offsets,
)
from services.text.scripts import UNSPACED_CHAR

MIN_WORDS = 3
# Quotations of every language: “…”, "…", «…», „…“ / „…”, »…«, ‹…›, 「…」, 『…』, and ‘…’
# opened after a blank or bracket and closed before a non-letter (not an apostrophe).
_QUOTATION = re.compile(
    r"\u201c([^\u201c\u201d]+)\u201d|\"([^\"]+)\"|\u00ab\s?([^\u00ab\u00bb]+?)\s?\u00bb"
    r"|\u201e([^\u201e\u201c\u201d]+)[\u201c\u201d]|(?<!\w)\u00bb([^\u00ab\u00bb]+)\u00ab(?!\w)"
    r"|\u2039\s?([^\u2039\u203a]+?)\s?\u203a|\u300c([^\u300c\u300d]+)\u300d"
    r"|\u300e([^\u300e\u300f]+)\u300f|(?<![\w\u2018])\u2018([^\u2018\u2019]+)\u2019(?!\w)"
)
# Scripts written without spaces: a quotation of at least `MIN_CHARS` of their characters is
# long enough to check.
MIN_CHARS = 4
_FINAL_PUNCT = ".!?\u2026\u3002\uff01\uff1f\u0964\u06d4\u061f"
_QUOTATION_TRIM = " ,;:.!?\u2026\u3002\uff0c\u3001\uff01\uff1f\uff1a\uff1b"
_NEAR = 2048


@dataclass(slots=True)
class UnitContext:
    """What unit resolution needs about one answer (`answer`: an `AnswerSubmitted` or its
    JSON object; its units are read as their field values, its sources' are the `index`'s)."""

    answer: Any
    extraction: CitationExtraction
    finder: QuoteFinder
    index: SectionIndex
    locators: Locators
    problems: list[Problem]
    text: str = field(init=False)
    pieces: list[Piece] = field(init=False)
    sources: list[Row] = field(init=False)
    answer_units: list[Any] | None = field(init=False)
    _utf16: Callable[[int], int] = field(init=False, repr=False)
    _markers: MarkerStripper | None = field(init=False, repr=False)
    _sources: dict[int, Row] = field(init=False, repr=False)
    _refs: dict[tuple[int, ...], list[str]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        (fields,) = field_tables(AnswerSubmitted, [self.answer])
        self.text = fields["text"]
        self.pieces = self.index.pieces
        self.sources = self.index.sources
        self.answer_units = fields["answer_units"]
        self._utf16 = utf16_offsets(self.text)
        self._markers = None
        self._sources = {source["index"]: source for source in self.sources}
        self._refs = {}

    def refs(self, indexes: list[int]) -> list[str]:
        """Supporting-source ids of source indexes (unknown indexes as their number)."""
        key = tuple(indexes)
        refs = self._refs.get(key)
        if refs is None:
            refs = []
            for index in indexes:
                source = self._sources.get(index)
                ref = source_ref(source) if source else str(index)
                if ref not in refs:
                    refs.append(ref)
            self._refs[key] = refs
        return list(refs)

    def positions(
        self, start: int | None, end: int | None
    ) -> tuple[int | None, int | None, int | None, int | None]:
        """Answer-side offsets: `(start, end, start_utf16, end_utf16)`."""
        if start is None or end is None:
            return None, None, None, None
        utf16 = self._utf16
        if utf16 is same_offset:
            return start, end, start, end
        return start, end, utf16(start), utf16(end)

    def without_markers(self, start: int, end: int) -> str:
        """Answer text of `[start, end)` without citation markers."""
        if self._markers is None:
            self._markers = MarkerStripper(self.text, self.extraction)
        return self._markers.strip(start, end)


_answer_unit = maker(AnswerUnit)


def _unit(
    unit_id: str,
    text: str,
    positions: tuple[int | None, int | None, int | None, int | None],
    *,
    spans: list[SourceSpan] | None = None,
    supporting: list[str] | None = None,
    origin: str = "upstream",
    downgraded: bool = False,
    closest: ApproximateMatch | None = None,
) -> AnswerUnit:
    """An answer unit: verbatim exactly when it has spans."""
    start, end, start_utf16, end_utf16 = positions
    return _answer_unit(
        {
            "id": unit_id,
            "text": text,
            "kind": "verbatim" if spans else "derived",
            "start": start,
            "end": end,
            "start_utf16": start_utf16,
            "end_utf16": end_utf16,
            "source_spans": spans or [],
            "supporting_sources": supporting or [],
            "origin": origin,
            "downgraded": downgraded,
            "closest_match": closest,
        }
    )


def _find_unit(text: str, unit_text: str, cursor: int) -> int:
    """Where `unit_text` is in the answer `text`: first at or after `cursor`, else anywhere;
    -1 when it is not there (or empty)."""
    if not unit_text:
        return -1
    # Usually the unit follows the previous one closely. CPython searches a slice shorter
    # than 2,500 characters without the two-way set-up, which costs more than that scan.
    start = text.find(unit_text, cursor, cursor + _NEAR)
    if start == -1:
        start = text.find(unit_text, cursor)
        if start == -1:
            start = text.find(unit_text)
    return start


def _upstream_unit(
    ctx: UnitContext, fields: Row, cursor: int
) -> tuple[AnswerUnit, int]:
    """Resolve one upstream unit (its field values); returns it and the answer position
    after it."""
    unit_id, unit_text, indexes = fields["id"], fields["text"], fields["source_indexes"]
    start = _find_unit(ctx.text, unit_text, cursor)
    if start != -1:
        end: int | None = start + len(unit_text)
        positions = ctx.positions(start, end)
        after = start + len(unit_text)
    else:
        end = None
        ctx.problems.append(
            Problem(
                code="unit_not_in_answer",
                message=f"unit {unit_id}: text not found in the answer",
            )
        )
        positions = (None, None, None, None)
        after = cursor
    if fields["kind"] == "derived":
        return _unit(unit_id, unit_text, positions, supporting=ctx.refs(indexes)), after
    quote = fields["quote"] or (
        ctx.without_markers(start, end) if end is not None else unit_text
    )
    if not any(map(str.isalnum, quote)):
        # No letter or digit is no claim (a lone `.` is found in every source): derived.
        ctx.problems.append(
            Problem(
                code="quote_too_short",
                message=f"unit {unit_id}: quote {quote[:40]!r} is too short to check; "
                "downgraded to derived",
                start=positions[0],
                end=positions[1],
            )
        )
        too_short = _unit(
            unit_id, unit_text, positions, supporting=ctx.refs(indexes), downgraded=True
        )
        return too_short, after
    spans = resolve_quote(ctx.finder, ctx.locators, quote, indexes)
    if spans:
        return _unit(unit_id, unit_text, positions, spans=spans), after
    ctx.problems.append(
        Problem(
            code="quote_not_found",
            message=f"unit {unit_id}: quote not found in the retrieved chunks; "
            "downgraded to derived",
            start=positions[0],
            end=positions[1],
        )
    )
    closest = closest_match(quote, ctx.pieces, indexes)
    downgraded = _unit(
        unit_id,
        unit_text,
        positions,
        supporting=ctx.refs(indexes),
        downgraded=True,
        closest=closest,
    )
    return downgraded, after


def upstream_units(ctx: UnitContext, units: list[Any]) -> list[AnswerUnit]:
    """Resolve upstream units (`AnswerUnitIn` models or their JSON objects) in order (each
    located in the answer after the previous)."""
    resolved: list[AnswerUnit] = []
    cursor = 0
    for unit in field_tables(AnswerUnitIn, units):
        answer_unit, cursor = _upstream_unit(ctx, unit, cursor)
        resolved.append(answer_unit)
    return resolved


def _words(text: str) -> int:
    return len(text.split())


def _checkable(quotation: str) -> bool:
    """Whether a quotation is long enough to be a verbatim claim: `MIN_WORDS` words, or
    `MIN_CHARS` characters of a script written without spaces."""
    return _words(quotation) >= MIN_WORDS or len(UNSPACED_CHAR.findall(quotation)) >= MIN_CHARS


def _sentence_spans(
    ctx: UnitContext, sentence: Row, cited: list[int]
) -> tuple[list[SourceSpan], str]:
    """Spans for a sentence (its `rows` entry) and their origin ("sentence" or
    "quotation"); none when neither the sentence nor a quotation in it is found."""
    cleaned = ctx.without_markers(sentence["start"], sentence["end"])
    if _checkable(cleaned):
        for candidate in (cleaned, cleaned.rstrip(_FINAL_PUNCT)):
            spans = resolve_quote(ctx.finder, ctx.locators, candidate, cited)
            if spans:
                return spans, "sentence"
    spans = []
    for match in _QUOTATION.finditer(cleaned):
        quotation = next(group for group in match.groups() if group).strip(
            _QUOTATION_TRIM
        )
        if _checkable(quotation):
            spans.extend(resolve_quote(ctx.finder, ctx.locators, quotation, cited))
    return spans, "quotation"


def sentence_units(ctx: UnitContext) -> list[AnswerUnit]:
    """One unit per sentence, verbatim when its text or a quotation in it is in a chunk."""
    cited_by_sentence: dict[int, list[int]] = {}
    for citation in rows(ctx.extraction, "citations"):
        source = citation["source_index"]
        if citation["valid"] and source is not None:
            cited = cited_by_sentence.setdefault(citation["sentence_index"], [])
            if source not in cited:
                cited.append(source)
    units: list[AnswerUnit] = []
    for sentence in rows(ctx.extraction, "sentences"):
        cited = cited_by_sentence.get(sentence["index"], [])
        spans, origin = _sentence_spans(ctx, sentence, cited)
        positions = ctx.positions(sentence["start"], sentence["end"])
        unit_id = f"S{sentence['index'] + 1}"
        if spans:
            units.append(
                _unit(unit_id, sentence["text"], positions, spans=spans, origin=origin)
            )
        else:
            supporting = ctx.refs(cited)
            units.append(
                _unit(
                    unit_id,
                    sentence["text"],
                    positions,
                    supporting=supporting,
                    origin="sentence",
                )
            )
    return units
