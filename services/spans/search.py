"""Exact quote search over all pieces of an answer, raw first, then normalised.

All pieces are joined into one haystack (NUL-separated; a hit never crosses a piece). The fast
path is `str.find` on the raw haystack. Only when a quote is not found raw is the normalised
haystack built (once per answer) and searched, and the hit mapped back to original offsets, so
a span always covers the source's own text. Line-end hyphenation has two readings (joined and
kept); the second view is built only when the text has a visible break hyphen.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from services.spans.sections import Piece
from services.text.normalize import Normalized, has_break_hyphen, normalize, normalize_quote

_SEPARATOR = "\x00"


@dataclass(frozen=True, slots=True)
class Hit:
    """An occurrence of a quote: `piece.text[start:end]`."""

    piece: Piece
    start: int
    end: int

    @property
    def text(self) -> str:
        """The source's own text at the hit."""
        return self.piece.text[self.start : self.end]


class QuoteFinder:
    """Finds quotes in the pieces of one answer; caches the normalised views it builds."""

    def __init__(self, pieces: list[Piece]) -> None:
        self._pieces = pieces
        self._starts: list[int] = []
        offset = 0
        for piece in pieces:
            self._starts.append(offset)
            offset += len(piece.text) + len(_SEPARATOR)
        self._haystack = _SEPARATOR.join(piece.text for piece in pieces)
        self._views: dict[bool, Normalized] = {}
        self._has_break_hyphen: bool | None = None

    def find(self, quote: str) -> list[Hit]:
        """The first occurrence of `quote` in every piece that has one, in piece order."""
        quote = quote.strip()
        if not quote or _SEPARATOR in quote:
            return []
        hits = self._collect(self._haystack, quote, None)
        if hits:
            return hits
        hits = self._find_normalised(quote, keep_break_hyphens=False)
        if hits or not self._break_hyphens():
            return hits
        return self._find_normalised(quote, keep_break_hyphens=True)

    def _break_hyphens(self) -> bool:
        if self._has_break_hyphen is None:
            self._has_break_hyphen = has_break_hyphen(self._haystack)
        return self._has_break_hyphen

    def _view(self, keep_break_hyphens: bool) -> Normalized:
        view = self._views.get(keep_break_hyphens)
        if view is None:
            view = normalize(self._haystack, keep_break_hyphens=keep_break_hyphens)
            self._views[keep_break_hyphens] = view
        return view

    def _find_normalised(self, quote: str, *, keep_break_hyphens: bool) -> list[Hit]:
        needle = normalize_quote(quote, keep_break_hyphens=keep_break_hyphens)
        if not needle or _SEPARATOR in needle:
            return []
        view = self._view(keep_break_hyphens)
        return self._collect(view.text, needle, view)

    def _collect(self, haystack: str, needle: str, view: Normalized | None) -> list[Hit]:
        """First hit per piece; with a view, positions are mapped back to the original."""
        hits: list[Hit] = []
        seen: set[int] = set()
        position = haystack.find(needle)
        while position != -1:
            span = (
                (position, position + len(needle))
                if view is None
                else view.original_span(position, position + len(needle))
            )
            if span is not None:
                number = bisect_right(self._starts, span[0]) - 1
                piece = self._pieces[number]
                start, end = span[0] - self._starts[number], span[1] - self._starts[number]
                if end <= len(piece.text) and number not in seen:
                    seen.add(number)
                    hits.append(Hit(piece, start, end))
                    if view is None and number + 1 < len(self._starts):
                        # Raw offsets are haystack offsets: skip to the next piece.
                        position = haystack.find(needle, self._starts[number + 1])
                        continue
            position = haystack.find(needle, position + 1)
        return hits
