"""Exact quote search over all pieces of an answer, raw first, then normalised.

All pieces are joined into one haystack (NUL-separated; a hit never crosses a piece), source
by source, so each source is one contiguous range of it. A quote is searched in the unit's own
sources first and, only when it is not there, in every other chunk. The fast path is
`str.find` on the raw haystack. Only when a quote is not found raw are the pieces' normalised
views built (once per answer; free for text that is already canonical) and searched, and a
hit mapped back to original offsets, so a span always covers the source's own text. Line-end
hyphenation has two readings (joined and kept); the second view is searched only when the
text has a visible break hyphen.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections.abc import Collection

from services.spans.sections import Piece
from services.text.normalize import (
    Normalized,
    has_break_hyphen,
    normalize,
    normalize_quote,
)

_SEPARATOR = "\x00"


# An occurrence of a quote: `piece.text[start:end]`, as `(piece, start, end)`.
Hit = tuple[Piece, int, int]


class QuoteFinder:
    """Finds quotes in the pieces of one answer; caches the normalised views it builds."""

    def __init__(self, pieces: list[Piece]) -> None:
        self._pieces = pieces
        self._starts: list[int] = []
        self._source_ranges: dict[int, tuple[int, int]] = {}
        offset = 0
        for piece in pieces:
            self._starts.append(offset)
            first = self._source_ranges.get(piece.source_index, (offset, 0))[0]
            self._source_ranges[piece.source_index] = (first, offset + len(piece.text))
            offset += len(piece.text) + len(_SEPARATOR)
        self._starts.append(offset)
        # Where (in the haystack) the next section begins after each piece (pieces of a
        # section are adjacent); past the end after the last section.
        self._next_section = [0] * len(pieces)
        following = offset
        for number in range(len(pieces) - 1, -1, -1):
            self._next_section[number] = following
            if number and _section_key(pieces[number - 1]) != _section_key(
                pieces[number]
            ):
                following = self._starts[number]
        self._haystack = _SEPARATOR.join(piece.text for piece in pieces)
        self._ascii = self._haystack.isascii()
        self._views: dict[tuple[int, bool], Normalized] = {}
        self._has_break_hyphen: bool | None = None

    def find(self, quote: str, preferred: Collection[int] = ()) -> list[Hit]:
        """The first occurrence of `quote` in each section that has one, in piece order: only
        in the `preferred` sources when it occurs there, else in all sources."""
        quote = quote.strip()
        if not quote or _SEPARATOR in quote:
            return []
        hits: list[Hit] = []
        for index in dict.fromkeys(preferred):
            bounds = self._source_ranges.get(index)
            if bounds is not None:
                hits += self._collect_raw(quote, *bounds)
        if hits:
            return hits
        hits = self._collect_raw(quote, 0, len(self._haystack))
        if not hits:
            hits = self._find_normalised(quote, keep_break_hyphens=False)
        if not hits and self._break_hyphens():
            hits = self._find_normalised(quote, keep_break_hyphens=True)
        own = [hit for hit in hits if hit[0].source_index in preferred]
        return own or hits

    def _break_hyphens(self) -> bool:
        if self._has_break_hyphen is None:
            self._has_break_hyphen = has_break_hyphen(self._haystack)
        return self._has_break_hyphen

    def _view(self, number: int, keep_break_hyphens: bool) -> Normalized:
        """The normalised view of one piece (built on first use)."""
        key = (number, keep_break_hyphens)
        view = self._views.get(key)
        if view is None:
            text = self._pieces[number].text
            view = self._views[key] = normalize(
                text, keep_break_hyphens=keep_break_hyphens
            )
        return view

    def _collect_raw(self, needle: str, low: int, high: int) -> list[Hit]:
        """First raw hit per section in `haystack[low:high]`."""
        haystack, starts, hits = self._haystack, self._starts, []
        size = len(needle)
        position = haystack.find(needle, low, high)
        while position != -1:
            number = bisect_right(starts, position) - 1
            end = position + size
            if end >= starts[number + 1] or (
                not self._ascii and _splits_cluster(haystack, position, end)
            ):
                position = haystack.find(needle, position + 1, high)
                continue
            offset = starts[number]
            hits.append((self._pieces[number], position - offset, end - offset))
            following = self._next_section[number]
            if following >= high:
                break
            position = haystack.find(needle, following, high)
        return hits

    def _find_normalised(self, quote: str, *, keep_break_hyphens: bool) -> list[Hit]:
        """First normalised hit per section, mapped back to original offsets."""
        needle = normalize_quote(quote, keep_break_hyphens=keep_break_hyphens)
        if not needle or _SEPARATOR in needle:
            return []
        # A canonical needle in a canonical piece is exactly what the raw search looked for.
        canonical_needle = needle == quote
        hits: list[Hit] = []
        seen: set[tuple[int, str]] = set()
        for number, piece in enumerate(self._pieces):
            if _section_key(piece) in seen:
                continue
            view = self._view(number, keep_break_hyphens)
            if canonical_needle and view.text is piece.text:
                continue
            position = view.text.find(needle)
            while position != -1:
                end = position + len(needle)
                span = view.original_span(position, end)
                if span is not None and not _splits_cluster(view.text, position, end):
                    seen.add(_section_key(piece))
                    hits.append((piece, *span))
                    break
                position = view.text.find(needle, position + 1)
        return hits


def _splits_cluster(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` cuts a character from its combining marks (`n` in `n` +
    U+0303 is not an occurrence of `n`)."""
    return bool(unicodedata.combining(text[start])) or (
        end < len(text) and bool(unicodedata.combining(text[end]))
    )


def _section_key(piece: Piece) -> tuple[int, str]:
    return piece.source_index, piece.section_id
