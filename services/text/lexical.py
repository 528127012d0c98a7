"""Lexical similarity: a fast word tokenizer, content terms (stopwords dropped, a light plural
stemmer) and Okapi BM25 over a handful of documents (one answer's sources or chunks).

Hot-path notes: ASCII text is tokenized with `str.translate` + `str.split` (about 3x faster
than a regex here); surface words are mapped to terms through a bounded memo dict with C-level
`map`, so no Python code runs per token once a word has been seen; a text's statistics are
memoised by content (bounded), so the chunks an answer shares with earlier answers, or with the
next stage in the same process, are tokenized once.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import filterfalse

STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each either
    etc few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just may me might more most must my myself neither no nor
    not now of off on once only or other our ours ourselves out over own per same shall she
    should so some such than that the their theirs them themselves then there these they this
    those through thus to too under until up upon us very via was we were what when where
    whether which while who whom whose why will with within without would yet you your yours
    yourself yourselves""".split()
)

BM25_K1 = 1.2
BM25_B = 0.75

_WORD = re.compile(r"[^\W_]+")
# Every ASCII character that is not a letter or digit separates words.
_ASCII_SEPARATORS = {code: " " for code in range(128) if not chr(code).isalnum()}

# Bounded memos: surface word -> term ("" when it is not a content term), term -> its surface
# forms, text -> statistics. Each is cleared whole when full: simple, bounded memory.
_MAX_WORDS = 200_000
_MAX_TEXTS = 4_096
_TERM_OF: dict[str, str] = {}
_FORMS: dict[str, tuple[str, ...]] = {}
_TEXTS: dict[str, TextTerms] = {}


_SET_TYPES = (set, frozenset, type({}.keys()))


def words(text: str) -> list[str]:
    """Lowercase word tokens: maximal runs of letters and digits (underscore separates)."""
    if text.isascii():
        return text.lower().translate(_ASCII_SEPARATORS).split()
    return _WORD.findall(text.lower())


def stem(word: str) -> str:
    """Harman's S-stemmer: folds English plurals (`studies` -> `study`, `cases` -> `case`)."""
    if len(word) > 3 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def _term(word: str) -> str:
    """The content term of one surface word, or "" for a stopword or a 1-character word."""
    return "" if len(word) < 2 or word in STOPWORDS else stem(word)


def terms_of(surface: Iterable[str]) -> set[str]:
    """The content terms of some surface words: stopwords and 1-character words dropped,
    plurals folded."""
    unique = surface if type(surface) in _SET_TYPES else set(surface)
    found = set(map(_TERM_OF.get, unique))
    if None in found:
        if len(_TERM_OF) + len(unique) > _MAX_WORDS:
            _TERM_OF.clear()
        for word in filterfalse(_TERM_OF.__contains__, unique):
            _TERM_OF[word] = _term(word)
        found = set(map(_TERM_OF.__getitem__, unique))
    found.discard("")
    return found


def text_terms(text: str) -> set[str]:
    """The content terms of a text."""
    return terms_of(words(text))


def surface_forms(term: str) -> tuple[str, ...]:
    """Every surface word whose term is `term` (the stemmer only folds plurals, so these are
    the term itself and its plural spellings)."""
    forms = _FORMS.get(term)
    if forms is None:
        plural_y = term[:-1] + "ies" if term.endswith("y") else ""
        candidates = (term, term + "s", term + "es", plural_y)
        forms = tuple(c for c in candidates if c and _term(c) == term)
        if len(_FORMS) >= _MAX_WORDS:
            _FORMS.clear()
        _FORMS[term] = forms
    return forms


@dataclass(frozen=True, slots=True)
class TextTerms:
    """Statistics of one text: token count, surface word counts, content terms."""

    length: int
    counts: Counter[str]
    terms: set[str]  # treat as read-only: shared through the memo

    def tf(self, term: str) -> int:
        """How often `term` occurs (in any of its surface forms)."""
        counts = self.counts
        return sum(counts.get(form, 0) for form in surface_forms(term))


def analyse(text: str) -> TextTerms:
    """The statistics of a text, memoised by content (bounded)."""
    cached = _TEXTS.get(text)
    if cached is not None:
        return cached
    tokens = words(text)
    counts = Counter(tokens)
    stats = TextTerms(len(tokens), counts, terms_of(counts.keys()))
    if len(_TEXTS) >= _MAX_TEXTS:
        _TEXTS.clear()
    _TEXTS[text] = stats
    return stats


def clear_memo() -> None:
    """Forget every memoised text and word (benchmarks use it to measure cold runs)."""
    _TEXTS.clear()
    _TERM_OF.clear()
    _FORMS.clear()


@dataclass(frozen=True, slots=True)
class Document:
    """A document made of several texts (e.g. a source's title and chunks)."""

    parts: tuple[TextTerms, ...]

    @property
    def length(self) -> int:
        """Total token count."""
        return sum(part.length for part in self.parts)

    def tf(self, term: str) -> int:
        """How often `term` occurs in any part."""
        return sum(part.tf(term) for part in self.parts)

    def has(self, term: str) -> bool:
        """Whether `term` occurs in any part."""
        return any(term in part.terms for part in self.parts)


def bm25(
    query_terms: Iterable[str],
    documents: Sequence[Document],
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> list[float]:
    """Okapi BM25 of each document for the query (Lucene's non-negative idf
    `ln(1 + (N - df + 0.5) / (df + 0.5))`). Deterministic; 0 for a document with no query term."""
    n = len(documents)
    scores = [0.0] * n
    if n == 0:
        return scores
    lengths = [doc.length for doc in documents]
    average = sum(lengths) / n or 1.0
    norms = [k1 * (1.0 - b + b * length / average) for length in lengths]
    all_counts = [[part.counts for part in doc.parts] for doc in documents]
    for term in sorted(set(query_terms)):
        forms = surface_forms(term)
        tfs = []
        for counts_of_doc in all_counts:
            tf = 0
            for counts in counts_of_doc:
                for form in forms:
                    tf += counts.get(form, 0)
            tfs.append(tf)
        df = n - tfs.count(0)
        if df == 0:
            continue
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        for i, tf in enumerate(tfs):
            if tf:
                scores[i] += idf * tf * (k1 + 1.0) / (tf + norms[i])
    return scores
