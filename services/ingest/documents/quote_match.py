"""Finding a TextQuoteSelector in a document's text for the reader (EPUB chapters, PDF pages).

The quote is searched with the canonical normalisation of span resolution
(`services.text.normalize`: whitespace, line-end hyphenation, soft hyphens, ligatures,
typographic quotes and dashes), so a quote the spans stage found is found here too, and the
match is mapped back to offsets of the original text. Among several occurrences the one whose
surroundings agree best with `prefix`/`suffix` wins; a tie goes to the occurrence nearest the
hint. When the exact quote is absent, an approximate match is accepted only above a
confidence threshold (few edits, its context in place); below it the reader abstains.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from services.text.approx import match_quote
from services.text.normalize import (
    Normalized,
    has_break_hyphen,
    normalize,
    normalize_quote,
)

# An approximate match must be at most this share of edits away from the quote...
MAX_ERROR_RATE = 0.05
# ...score at least this (quote, context and position weighted as Hypothesis does)...
MIN_APPROX_SCORE = 0.9
# ...and the quote must be long enough for edits to mean little.
MIN_APPROX_CHARS = 20
# Approximate search runs once per text character in Python (about 15 ms per 1,000): only
# over texts this long (a chapter, three PDF pages).
MAX_APPROX_TEXT = 40_000


@dataclass(frozen=True)
class Found:
    """Where a quote is in the original text: `[start, end)`, how it matched, how sure."""

    start: int
    end: int
    match: Literal["exact", "approximate"]
    confidence: float
    occurrences: int


class SearchText:
    """A text and its canonical readings (hyphenation joined, then, if it matters, kept),
    built on first use: keep one to search the same text again cheaply."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._views: list[Normalized] | None = None

    @property
    def views(self) -> list[Normalized]:
        if self._views is None:
            self._views = [normalize(self.text)]
            if has_break_hyphen(self.text):
                self._views.append(normalize(self.text, keep_break_hyphens=True))
        return self._views


def _common_suffix(a: str, b: str) -> int:
    size = 0
    for x, y in zip(reversed(a), reversed(b), strict=False):
        if x != y:
            break
        size += 1
    return size


def _common_prefix(a: str, b: str) -> int:
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    return size


def _occurrences(view: Normalized, needle: str) -> list[tuple[int, int]]:
    """Original spans of every exact occurrence of `needle` in a normalised view."""
    spans: list[tuple[int, int]] = []
    position = view.text.find(needle)
    while position != -1:
        span = view.original_span(position, position + len(needle))
        if span is not None:
            spans.append(span)
        position = view.text.find(needle, position + 1)
    return spans


def _context(text: str, span: tuple[int, int], prefix: str, suffix: str) -> int:
    """How many characters of the normalised prefix and suffix agree around `span`."""
    before = normalize_quote(text[max(0, span[0] - 2 * len(prefix) - 8) : span[0]])
    after = normalize_quote(text[span[1] : span[1] + 2 * len(suffix) + 8])
    return _common_suffix(before, prefix) + _common_prefix(after, suffix)


def find_quote(
    searched: str | SearchText, exact: str, prefix: str = "", suffix: str = "",
    hint: int | None = None, *, approximate: bool = True,
) -> Found | None:
    """The best place of the quote in the text (original offsets), or None: abstain.
    `approximate=False` accepts exact (normalised) matches only."""
    if isinstance(searched, str):
        searched = SearchText(searched)
    text = searched.text
    needle = normalize_quote(exact)
    if not needle or not text:
        return None
    views = searched.views
    for view in views:
        spans = _occurrences(view, needle)
        if spans:
            break
    if spans:
        norm_prefix, norm_suffix = normalize_quote(prefix), normalize_quote(suffix)
        anchor = hint if hint is not None else 0

        def rank(span: tuple[int, int]) -> tuple[int, int]:
            return (-_context(text, span, norm_prefix, norm_suffix), abs(span[0] - anchor))

        best = min(spans, key=rank) if len(spans) > 1 else spans[0]
        return Found(best[0], best[1], "exact", 1.0, len(spans))
    return _approximate(views[0], needle, prefix, suffix, hint) if approximate else None


def _approximate(
    view: Normalized, needle: str, prefix: str, suffix: str, hint: int | None
) -> Found | None:
    """An approximate match above the confidence threshold, else None."""
    if len(needle) < MIN_APPROX_CHARS or len(view.text) > MAX_APPROX_TEXT:
        return None
    found = match_quote(
        view.text, needle, prefix=normalize_quote(prefix) or None,
        suffix=normalize_quote(suffix) or None, hint=hint,
    )
    if found is None or found.errors > MAX_ERROR_RATE * len(needle):
        return None
    if found.score < MIN_APPROX_SCORE:
        return None
    span = view.original_span(found.start, found.end)
    if span is None:
        return None
    return Found(span[0], span[1], "approximate", round(found.score, 3), 1)
