"""A source as the support check reads it: its text cut into sentence windows, each with its
content terms and numbers.

The text is the source's pieces (its chunks joined by section, as span resolution builds
them) in the canonical form of services.text.normalize, so the check is stable under
ligatures, line-end hyphenation and Unicode forms; window offsets map back to the pieces' own
text. A piece whose canonical form would only fold quotes, dashes and whitespace (which
separate words either way) is read as it is: same words, no offset map to build. Windows are
the sentences that the citations stage cuts chunks into (`chunk_sentences`). Views are memoised by their texts (bounded): a source retrieved again,
or judged again in the same process, is read once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.citations.passages import chunk_sentences
from services.text.atoms import fold_blanks, is_heading
from services.text.lexical import NO_NAMES, span_terms, words
from services.text.normalize import (
    IGNORABLE,
    Normalized,
    has_break_hyphen,
    normalize,
    same_words_in_nfkc,
)
from services.text.numbers import stated_numbers
from services.text.separators import fold_punctuation
from services.verification.claims import has_digit
from services.verification.crosslang import source_language

_MEMO_LIMIT = 1_024
_VIEWS: dict[tuple[tuple[str, ...], frozenset[str]], SourceView] = {}
# How far a window boundary may move to leave a folded piece (e.g. a ligature) it cuts.
_NUDGE = 4


@dataclass(slots=True)
class Window:
    """One sentence of a piece: `[start, end)` of the piece's canonical text (not frozen: a
    frozen dataclass costs several times more to build, and a view builds many)."""

    piece: int
    start: int
    end: int
    items: set[str]  # content terms (numbers of two digits or more are terms); read-only
    negated: bool | None = None  # whether it holds a negation (read on first use)
    heading: bool = False  # a line of its own without closing punctuation (title, metadata)


@dataclass(slots=True)
class SourceView:
    """The canonical pieces of one source, their windows and everything they contain."""

    texts: tuple[str, ...]  # what is read of each piece
    maps: tuple[Normalized | None, ...]  # None: read as it is
    windows: tuple[Window, ...]
    window_items: tuple[set[str], ...]  # each window's items, in order (mapped over)
    vocabulary: frozenset[str]  # the windows' items and the name terms
    # The source's name terms (services.text.lexical.name_terms): every window holds them.
    names: frozenset[str] = NO_NAMES
    _numbers: frozenset[str] | None = None
    _language: str | None = None
    _folded: tuple[str, ...] | None = None
    _headings: tuple[int, ...] | None = None

    @property
    def headings(self) -> tuple[int, ...]:
        """The positions of the windows that are headings (read on first use)."""
        if self._headings is None:
            self._headings = tuple(
                number for number, window in enumerate(self.windows) if window.heading
            )
        return self._headings

    @property
    def folded(self) -> tuple[str, ...]:
        """Each piece's text in lowercase with runs of blanks as one space (read on first
        use: only quotes are searched in it); offsets do not map back."""
        if self._folded is None:
            self._folded = tuple(fold_blanks(text) for text in self.texts)
        return self._folded

    @property
    def language(self) -> str:
        """The source's language (services.verification.crosslang; read on first use)."""
        if self._language is None:
            self._language = source_language(self.texts)
        return self._language

    @property
    def numbers(self) -> frozenset[str]:
        """Every number of the source (digit tokens, single digits included, and the digits
        of ordinals and units written onto them: services.text.numbers.stated_numbers; read
        on first use: only claims with numbers ask)."""
        if self._numbers is None:
            self._numbers = frozenset(
                number
                for text in self.texts
                if has_digit(text)
                for number in stated_numbers(words(text))
            )
        return self._numbers

    def original_bounds(self, piece: int, start: int, end: int) -> tuple[int, int]:
        """`[start, end)` of the text read as offsets in the piece's own text (nudged
        outwards when a bound falls inside a folded character)."""
        view = self.maps[piece]
        if view is None:
            return start, end
        for step in range(_NUDGE + 1):
            span = view.original_span(max(0, start - step), min(len(view.text), end + step))
            if span is not None:
                return span
        return 0, view.original_length


def source_view(texts: Sequence[str], names: frozenset[str] = NO_NAMES) -> SourceView | None:
    """The view of a source made of the piece `texts`, with its name terms; None when it
    has no text at all."""
    pieces = tuple(texts)
    key = (pieces, names)
    cached = _VIEWS.get(key)
    if cached is not None:
        return cached
    maps = tuple(map(_canonical, pieces))
    texts = tuple(text if view is None else view.text for text, view in zip(pieces, maps))
    windows: list[Window] = []
    for number, text in enumerate(texts):
        spans = chunk_sentences(text)
        windows += [
            Window(number, start, end, terms, None, is_heading(text, start, end))
            for (start, end), terms in zip(spans, span_terms(text, spans), strict=True)
        ]
    if not windows:
        return None
    items = tuple(window.items for window in windows)
    view = SourceView(texts, maps, tuple(windows), items, frozenset().union(names, *items), names)
    if len(_VIEWS) >= _MEMO_LIMIT:
        _VIEWS.clear()
    _VIEWS[key] = view
    return view


def _canonical(text: str) -> Normalized | None:
    """The canonical form of a piece, or None when reading it as it is gives the same words."""
    if fold_punctuation(text).isascii():
        # ASCII but for quotes, dashes and spaces: only a line-end hyphenation changes words
        return normalize(text) if has_break_hyphen(text) else None
    if (
        same_words_in_nfkc(text)
        and not any(ch in text for ch in IGNORABLE)
        and not has_break_hyphen(text)
    ):
        return None
    return normalize(text)


def clear_memo() -> None:
    """Forget every view (benchmarks measure cold runs)."""
    _VIEWS.clear()
