"""Canonical text normalisation for quote matching, with a map back to original offsets.

The canonical form removes differences that are not edits:

- whitespace runs and line breaks become one space;
- line-end hyphenation (`infor-\\nmation`) is joined: the hyphen and the break are dropped
  (or, with `keep_break_hyphens`, only the break: `well-\\nknown` -> `well-known`);
- soft hyphens and zero-width characters are dropped;
- typographic quotes become `'` / `"`, typographic dashes and minus signs become `-`;
- Unicode compatibility forms are folded with NFKC: ligatures (`ﬁ` -> `fi`), full-width forms,
  and composed/decomposed accents (`e` + U+0301 -> `é`).

Case is never folded. Text is scanned with one regular expression; only the places that
change become map entries, so ASCII prose with single spaces costs one regex pass.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field

# Characters that carry no text: soft hyphen, zero-width space/non-joiner/joiner, word joiner, BOM.
IGNORABLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"

_QUOTES_AND_DASHES = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u02bc", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212", "-"),
}
_TRANSLATE = str.maketrans({**_QUOTES_AND_DASHES, **dict.fromkeys(IGNORABLE, "")})
# Full-width punctuation and the ideographic space, which NFKC turns into ASCII punctuation
# and a space: both separate words either way (CJK text is full of them).
_WIDE_SEPARATORS = str.maketrans(
    dict.fromkeys(
        [chr(c) for c in range(0xFF01, 0xFF10)] + [chr(c) for c in range(0xFF1A, 0xFF21)]
        + [chr(c) for c in range(0xFF3B, 0xFF41)] + [chr(c) for c in range(0xFF5B, 0xFF66)]
        + ["\u3000"],
        " ",
    )
)


def same_words_in_nfkc(text: str) -> bool:
    """Whether `text` reads the same words in NFKC: it is in NFKC but, at most, for
    full-width punctuation and spaces (word separators in both forms)."""
    if unicodedata.is_normalized("NFKC", text):
        return True
    return unicodedata.is_normalized("NFKC", text.translate(_WIDE_SEPARATORS))

_LETTER = r"[^\W\d_]"
# A letter or a combining mark (a decomposed accent ends a word as well as a letter does).
_LETTER_OR_MARK = (
    r"(?:[^\W\d_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f])"
)
_BREAK = r"(?:\r\n|[\n\r\x0b\x0c\x85\u2028\u2029])"
_HYPHENS = "-\u00ad\u2010\u2011"
# Line-end hyphenation between letters: hyphen, optional blanks, one line break, blanks. (The
# hyphen is matched first and the letter before it checked behind, so every alternative of
# `_SPECIAL` starts with a character class and the scan stays cheap.)
_HYPHENATION = (
    rf"[{_HYPHENS}](?<={_LETTER_OR_MARK}[{_HYPHENS}])[ \t]*{_BREAK}[ \t]*(?={_LETTER})"
)
_SPECIAL = re.compile(
    rf"(?P<hyphen>{_HYPHENATION})"
    # Runs of whitespace/ignorables (2+ chars), or one character other than a plain space.
    rf"|(?P<blank>[\s{IGNORABLE}]{{2,}}|[^\S ]|[{IGNORABLE}])"
    # Non-ASCII text.
    rf"|(?P<other>[^\x00-\x7f\s{IGNORABLE}]+)"
)
_VISIBLE_BREAK_HYPHEN = re.compile(_HYPHENATION.replace(_HYPHENS, "-\u2010\u2011"))


@dataclass(slots=True)
class _Segment:
    """A stretch of normalised text and the original stretch it came from."""

    norm_start: int
    orig_start: int
    norm_len: int
    orig_len: int
    identity: bool


@dataclass(slots=True)
class Normalized:
    """A normalised text and the map from its offsets back to the original's."""

    text: str
    original_length: int
    _segments: list[_Segment] = field(default_factory=list, repr=False)
    _norm_starts: list[int] = field(default_factory=list, repr=False)

    def original_span(self, start: int, end: int) -> tuple[int, int] | None:
        """Original `[start, end)` of normalised `[start, end)`, or None when a boundary falls
        inside a replaced piece (e.g. half of a ligature): such a match is not exact."""
        if not 0 <= start < end <= len(self.text):
            return None
        first = self._segments[bisect_right(self._norm_starts, start) - 1]
        last = self._segments[bisect_right(self._norm_starts, end - 1) - 1]
        if first.identity:
            orig_start = first.orig_start + start - first.norm_start
        elif start == first.norm_start:
            orig_start = first.orig_start
        else:
            return None
        if last.identity:
            orig_end = last.orig_start + end - last.norm_start
        elif end == last.norm_start + last.norm_len:
            orig_end = last.orig_start + last.orig_len
        else:
            return None
        return orig_start, orig_end


class _Builder:
    """Accumulates output pieces and their map segments."""

    __slots__ = ("last_space", "length", "parts", "segments")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.segments: list[_Segment] = []
        self.length = 0
        self.last_space = False

    def copy(self, text: str, orig_start: int) -> None:
        """Emit original text unchanged."""
        if not text:
            return
        if self.last_space and text[0] == " ":
            text, orig_start = text[1:], orig_start + 1
            if not text:
                return
        self.segments.append(
            _Segment(self.length, orig_start, len(text), len(text), True)
        )
        self.parts.append(text)
        self.length += len(text)
        self.last_space = text[-1] == " "

    def replace(self, text: str, orig_start: int, orig_len: int) -> None:
        """Emit `text` in place of `orig_len` original characters."""
        if self.last_space and text.startswith(" "):
            text = text[1:]
        if not text:
            return
        self.segments.append(
            _Segment(self.length, orig_start, len(text), orig_len, False)
        )
        self.parts.append(text)
        self.length += len(text)
        self.last_space = text[-1] == " "


def _fold(cluster: str) -> str:
    """NFKC, then quotes/dashes/ignorables, then NFKC again (a fold may enable composition)."""
    folded = unicodedata.normalize("NFKC", cluster).translate(_TRANSLATE)
    return unicodedata.normalize("NFKC", folded)


def _emit_other(out: _Builder, run: str, orig_start: int) -> None:
    """Fold a run of (mostly) non-ASCII text cluster by cluster (a base plus its combining
    marks)."""
    if run.translate(_TRANSLATE) == run and unicodedata.is_normalized("NFKC", run):
        out.copy(run, orig_start)
        return
    cluster_start = 0
    for index in range(1, len(run) + 1):
        if index < len(run) and unicodedata.combining(run[index]):
            continue
        cluster = run[cluster_start:index]
        folded = _fold(cluster)
        if folded == cluster:
            out.copy(cluster, orig_start + cluster_start)
        else:
            out.replace(folded, orig_start + cluster_start, len(cluster))
        cluster_start = index


def normalize(text: str, *, keep_break_hyphens: bool = False) -> Normalized:
    """The canonical form of `text` with its offset map (see the module docstring)."""
    if text.isascii() and text.isprintable() and "  " not in text:
        # Printable ASCII with single spaces is already canonical.
        segments = [_Segment(0, 0, len(text), len(text), True)] if text else []
        return Normalized(text, len(text), segments, [0] if text else [])
    out = _Builder()
    position = 0
    for match in _SPECIAL.finditer(text):
        start, end = match.span()
        kind = match.lastgroup
        if kind == "other" and start > position and unicodedata.combining(text[start]):
            start -= 1  # the base character of a combining mark belongs to its cluster
        out.copy(text[position:start], position)
        piece = text[start:end]
        if kind == "hyphen":
            keep = keep_break_hyphens and piece[0] != "\u00ad"
            out.replace("-" if keep else "", start, end - start)
        elif kind == "blank":
            has_space = any(ch not in IGNORABLE for ch in piece)
            out.replace(" " if has_space else "", start, end - start)
        else:
            _emit_other(out, piece, start)
        position = end
    out.copy(text[position:], position)
    segments = out.segments
    return Normalized(
        text="".join(out.parts),
        original_length=len(text),
        _segments=segments,
        _norm_starts=[segment.norm_start for segment in segments],
    )


def normalize_quote(quote: str, *, keep_break_hyphens: bool = False) -> str:
    """The canonical form of a quote to search for: normalised and stripped of outer spaces."""
    return normalize(quote, keep_break_hyphens=keep_break_hyphens).text.strip(" ")


def has_break_hyphen(text: str) -> bool:
    """Whether `text` has a visible hyphen at a line end between letters (where the two
    hyphenation readings, joined and kept, differ)."""
    if "-" not in text and (text.isascii() or ("\u2010" not in text and "\u2011" not in text)):
        return False  # (a substring test is a fast scan; the pattern's is not)
    return _VISIBLE_BREAK_HYPHEN.search(text) is not None
