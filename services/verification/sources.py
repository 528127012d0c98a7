"""A source as the support check reads it: its text cut into sentence windows, each with its
content terms and numbers.

The text is the source's pieces (its chunks joined by section, as span resolution builds
them) in the canonical form of services.text.normalize, so the check is stable under
ligatures, line-end hyphenation and Unicode forms; window offsets map back to the pieces' own
text. Windows are the sentences that the citations stage cuts chunks into
(`chunk_sentences`). Views are memoised by their texts (bounded): a source retrieved again,
or judged again in the same process, is read once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.citations.passages import chunk_sentences
from services.text.lexical import span_terms
from services.text.normalize import Normalized, normalize
from services.verification.claims import DIGITS

_MEMO_LIMIT = 1_024
_VIEWS: dict[tuple[str, ...], SourceView] = {}
# How far a window boundary may move to leave a folded piece (e.g. a ligature) it cuts.
_NUDGE = 4


@dataclass(frozen=True, slots=True)
class Window:
    """One sentence of a piece: `[start, end)` of the piece's canonical text."""

    piece: int
    start: int
    end: int
    items: frozenset[str]


@dataclass(frozen=True, slots=True)
class SourceView:
    """The canonical pieces of one source, their windows and everything they contain."""

    pieces: tuple[Normalized, ...]
    windows: tuple[Window, ...]
    vocabulary: frozenset[str]

    def text(self, window: Window, last: Window | None = None) -> str:
        """The canonical text from `window` to `last` (same piece; default: itself)."""
        end = (last or window).end
        return self.pieces[window.piece].text[window.start : end]

    def original_bounds(self, piece: int, start: int, end: int) -> tuple[int, int]:
        """`[start, end)` of canonical piece text as offsets in the piece's own text (nudged
        outwards when a bound falls inside a folded character)."""
        view = self.pieces[piece]
        for step in range(_NUDGE + 1):
            span = view.original_span(max(0, start - step), min(len(view.text), end + step))
            if span is not None:
                return span
        return 0, view.original_length


def source_view(texts: Sequence[str]) -> SourceView | None:
    """The view of a source made of the piece `texts`; None when it has no text at all."""
    key = tuple(texts)
    cached = _VIEWS.get(key)
    if cached is not None:
        return cached
    pieces = tuple(normalize(text) for text in key)
    windows: list[Window] = []
    for number, piece in enumerate(pieces):
        text = piece.text
        spans = chunk_sentences(text)
        with_digits = DIGITS.search(text) is not None
        for (start, end), terms in zip(spans, span_terms(text, spans), strict=True):
            if with_digits:
                terms.update(DIGITS.findall(text, start, end))
            windows.append(Window(number, start, end, frozenset(terms)))
    if not windows:
        return None
    view = SourceView(
        pieces, tuple(windows), frozenset().union(*(w.items for w in windows))
    )
    if len(_VIEWS) >= _MEMO_LIMIT:
        _VIEWS.clear()
    _VIEWS[key] = view
    return view


def clear_memo() -> None:
    """Forget every view (benchmarks measure cold runs)."""
    _VIEWS.clear()
