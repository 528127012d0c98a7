"""Lexical similarity: a fast word tokenizer, content terms (stopwords dropped, a light plural
stemmer) and Okapi BM25 over a handful of documents (one answer's sources or chunks).

Hot-path notes: ASCII text is tokenized with one `bytes.translate` (separators to spaces,
capitals to lowercase) and `str.split` (several times faster than a regex here; other text uses
the regex); surface words are mapped to terms through a bounded memo dict with C-level `map`, so
no Python code runs per token once a word has been seen, and every term is the memo's own string
object, so later set and dict lookups between terms match by identity (no string compare); a
text's statistics are memoised by content (bounded), so chunks an answer shares with earlier
answers, or with the next stage in the same process, are tokenized once.
"""

from __future__ import annotations

import math
import re
from collections import _count_elements  # type: ignore[attr-defined]  # Counter's C helper
from collections.abc import Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import filterfalse
from operator import add
from typing import cast

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
# A bytes.translate table: every ASCII character that is not a letter or digit becomes a space,
# and capitals become lowercase (as `str.lower`). Going through bytes costs two copies but is
# far cheaper than `str.translate`, which looks each distinct character up in its table.
_ASCII_WORDS = bytes([ord(ch.lower()) if ch.isalnum() else 32 for ch in map(chr, range(128))])
_ASCII_WORDS += bytes(range(128, 256))  # unused: only ASCII text is translated
# Quotes, guillemets, dashes, ellipsis, bullets, no-break and thin space.
_COMMON_SEPARATORS = (
    "\u201c\u201d\u2018\u2019\u201e\u00ab\u00bb\u2014\u2013\u2026\u2022\u00b7\u00a0\u2009"
)

# Bounded memos: surface word -> term ("" when it is not a content term), text -> statistics.
# Each is cleared whole when full: simple, and memory stays bounded.
_MAX_WORDS = 50_000
_MAX_TEXTS = 1_024
_TERM_OF: dict[str, str] = {}
_TEXTS: dict[str, TextTerms] = {}


def fold_punctuation(text: str) -> str:
    """The text with common non-ASCII separators (typographic quotes and dashes, ellipsis,
    bullets, no-break and thin spaces) replaced by spaces: same length, same words, and
    often ASCII afterwards, which `words` tokenizes much faster."""
    if text.isascii():
        return text
    for separator in _COMMON_SEPARATORS:
        if separator in text:
            text = text.replace(separator, " ")
    return text


def _ascii_words(text: str) -> str:
    """ASCII `text` with every separator a space and capitals lowercase (same length)."""
    return text.encode().translate(_ASCII_WORDS).decode()


def words(text: str) -> list[str]:
    """Lowercase word tokens: maximal runs of letters and digits (underscore separates)."""
    if not text.isascii():
        text = fold_punctuation(text)
        if not text.isascii():
            return _WORD.findall(text.lower())
    return _ascii_words(text).split()


def span_tokens(text: str, spans: Iterable[tuple[int, int]]) -> list[list[str]]:
    """The word tokens (`words`) of several `[start, end)` slices of one text (e.g. its
    sentences), preparing the whole text once instead of every slice."""
    folded = fold_punctuation(text)
    if not folded.isascii():
        return [words(folded[start:end]) for start, end in spans]
    prepared = _ascii_words(folded)  # same length: offsets hold
    return [prepared[start:end].split() for start, end in spans]


def span_terms(text: str, spans: Iterable[tuple[int, int]]) -> list[set[str]]:
    """The content terms of several `[start, end)` slices of one text (`span_tokens`)."""
    return list(map(terms_of, span_tokens(text, spans)))


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


def _learn(unique: AbstractSet[str]) -> None:
    """Make sure every word of `unique` is in the term memo."""
    missing = list(filterfalse(_TERM_OF.__contains__, unique))
    if missing:
        if len(_TERM_OF) + len(missing) > _MAX_WORDS:
            _TERM_OF.clear()
            missing = list(unique)
        for word in missing:
            _TERM_OF[word] = _term(word)


def terms_of(surface: Collection[str]) -> set[str]:
    """The content terms of some surface words: stopwords and 1-character words dropped,
    plurals folded."""
    seen = set(map(_TERM_OF.get, surface))
    if None in seen:
        unique = set(surface)
        _learn(unique)
        found = set(map(_TERM_OF.__getitem__, unique))
    else:
        found = cast("set[str]", seen)  # every word was known: only terms
    found.discard("")
    return found


def text_terms(text: str) -> set[str]:
    """The content terms of a text."""
    return terms_of(words(text))


@dataclass(frozen=True, slots=True)
class TextTerms:
    """Statistics of one text: its token count and how often each content term occurs."""

    length: int
    counts: dict[str, int]  # treat as read-only: shared through the memo
    terms: frozenset[str]


def _counts(items: Iterable[str | None]) -> dict[str, int]:
    """How often each item occurs (`Counter`'s C counting helper into a plain dict, whose
    lookups are cheaper than a `Counter`'s)."""
    counts: dict[str, int] = {}
    _count_elements(counts, items)
    return counts


def analyse(text: str) -> TextTerms:
    """The statistics of a text, memoised by content (bounded)."""
    cached = _TEXTS.get(text)
    if cached is not None:
        return cached
    tokens = words(text)
    counts = _counts(map(_TERM_OF.get, tokens))
    if None in counts:  # words never seen before: learn them, count again
        _learn(set(tokens))
        counts = _counts(map(_TERM_OF.__getitem__, tokens))
    counts.pop("", None)
    stats = TextTerms(len(tokens), counts, frozenset(counts))
    if len(_TEXTS) >= _MAX_TEXTS:
        _TEXTS.clear()
    _TEXTS[text] = stats
    return stats


def clear_memo(*, vocabulary: bool = True) -> None:
    """Forget every memoised text, and every learnt word unless `vocabulary` is False
    (benchmarks use it to measure cold runs)."""
    _TEXTS.clear()
    if vocabulary:
        _TERM_OF.clear()


@dataclass(frozen=True, slots=True)
class Document:
    """A document made of several texts (e.g. a source's title and chunks)."""

    parts: tuple[TextTerms, ...]

    @property
    def length(self) -> int:
        """Total token count."""
        return sum(part.length for part in self.parts)


def bm25(
    query_terms: Iterable[str],
    documents: Sequence[Document],
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> list[float]:
    """Okapi BM25 of each document for the query (Lucene's non-negative idf
    `ln(1 + (N - df + 0.5) / (df + 0.5))`). Deterministic; 0 for a document with no query term."""
    return bm25_of_parts(query_terms, [doc.parts for doc in documents], k1=k1, b=b)


def bm25_of_parts(
    query_terms: Iterable[str],
    documents: Sequence[Sequence[TextTerms]],
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> list[float]:
    """`bm25` of documents given as the statistics of their parts (no `Document` needed)."""
    n = len(documents)
    terms = sorted(set(query_terms))
    if n == 0 or not terms:
        return [0.0] * n
    lengths = [sum([part.length for part in parts]) for parts in documents]
    average = sum(lengths) / n or 1.0
    zeros = [0] * len(terms)
    rows = []  # per document, the frequency of each query term (summed over its parts)
    for parts in documents:
        if not parts:
            rows.append(zeros)
            continue
        row = list(map(parts[0].counts.get, terms, zeros))
        for part in parts[1:]:
            row = list(map(add, row, map(part.counts.get, terms, zeros)))
        rows.append(row)
    idfs = []
    for column in zip(*rows):  # each query term's frequency per document
        df = n - column.count(0)
        idfs.append(math.log(1.0 + (n - df + 0.5) / (df + 0.5)) if df else 0.0)
    boost = k1 + 1.0
    scores = []
    for row, length in zip(rows, lengths):
        norm = k1 * (1.0 - b + b * length / average)
        score = 0.0
        for idf, tf in zip(idfs, row):  # in term order: the float sum is deterministic
            if tf:
                score += idf * tf * boost / (tf + norm)
        scores.append(score)
    return scores
