"""Lexical similarity: a fast word tokenizer, content terms (stopwords dropped, a light plural
stemmer) and Okapi BM25 over a handful of documents (one answer's sources or chunks).

Hot-path notes: ASCII text is tokenized with one `str.translate` (separators to spaces, capitals
to lowercase) and `str.split` (several times faster than a regex here; other text uses the
regex). Learnt words live in two bounded memos: `_KEPT`, the words that are their own term (most
content words), and `_TERM_OF`, every other word -> its term ("" when dropped). Most of a text's
words are then handled by C-level set and dict operations (`words - _KEPT`, counting surface
words), and Python code runs only for the few other distinct words (stopwords, plurals). A
text's statistics are memoised by content (bounded), so chunks an answer shares with earlier
answers, or with the next stage in the same process, are tokenized once.
"""

from __future__ import annotations

import math
import re
from collections import _count_elements  # C counting helper of Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import filterfalse
from operator import add

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
_ASCII_WORDS = bytes(ord(ch.lower()) if ch.isalnum() else 32 for ch in map(chr, range(128)))
_ASCII_WORDS += bytes(range(128, 256))  # unused: only ASCII text is translated
# Quotes, guillemets, dashes, ellipsis, bullets, no-break and thin space.
_COMMON_SEPARATORS = (
    "\u201c\u201d\u2018\u2019\u201e\u00ab\u00bb\u2014\u2013\u2026\u2022\u00b7\u00a0\u2009"
)

# Bounded memos: words that are their own term, every other learnt word -> its term ("" when it
# is not a content term), text -> statistics. Each is cleared whole when full (the two word
# memos together): simple, and memory stays bounded.
_MAX_WORDS = 200_000
_MAX_TEXTS = 4_096
_KEPT: set[str] = set()
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


def span_terms(text: str, spans: Iterable[tuple[int, int]]) -> list[set[str]]:
    """The content terms of several `[start, end)` slices of one text (e.g. its sentences),
    preparing the whole text once instead of every slice."""
    folded = fold_punctuation(text)
    if not folded.isascii():
        return [text_terms(folded[start:end]) for start, end in spans]
    prepared = _ascii_words(folded)  # same length: offsets hold
    return [_to_terms(set(prepared[start:end].split())) for start, end in spans]


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


def _learn(word: str) -> str:
    """The term of a word not in the memos, which then remember it."""
    if len(_KEPT) + len(_TERM_OF) >= _MAX_WORDS:
        _KEPT.clear()
        _TERM_OF.clear()
    term = _term(word)
    if term == word:
        _KEPT.add(word)
    else:
        _TERM_OF[word] = term
    return term


def _to_terms(words: set[str]) -> set[str]:
    """Distinct surface words turned into their content terms, in place."""
    odd = words - _KEPT  # iterates `words` only, however large the memo
    if odd:
        words -= odd
        words.update(map(_TERM_OF.get, odd))
        if None in words:  # words never seen before
            words.discard(None)  # type: ignore[arg-type]
            words.update(map(_learn, filterfalse(_TERM_OF.__contains__, odd)))
        words.discard("")
    return words


def terms_of(surface: Collection[str]) -> set[str]:
    """The content terms of some surface words: stopwords and 1-character words dropped,
    plurals folded."""
    return _to_terms(set(surface))


def text_terms(text: str) -> set[str]:
    """The content terms of a text."""
    return _to_terms(set(words(text)))


@dataclass(frozen=True, slots=True)
class TextTerms:
    """Statistics of one text: its token count and how often each content term occurs."""

    length: int
    counts: dict[str, int]  # treat as read-only: shared through the memo
    terms: frozenset[str]


def analyse(text: str) -> TextTerms:
    """The statistics of a text, memoised by content (bounded)."""
    cached = _TEXTS.get(text)
    if cached is not None:
        return cached
    tokens = words(text)
    counts: dict[str, int] = {}
    _count_elements(counts, tokens)  # surface words first: C-level, no call per token
    odd = counts.keys() - _KEPT
    if odd:
        # Every odd word is taken out before any term is added: a term may be spelt like
        # another odd word ("ins" -> "in", itself a stopword).
        moved = [(word, counts.pop(word)) for word in odd]
        get = _TERM_OF.get
        for word, count in moved:
            term = get(word)
            if term is None:
                term = _learn(word)
            if term:
                counts[term] = counts.get(term, 0) + count
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
        _KEPT.clear()
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
    n = len(documents)
    scores = [0.0] * n
    if n == 0:
        return scores
    lengths = [sum([part.length for part in doc.parts]) for doc in documents]
    average = sum(lengths) / n or 1.0
    norms = [k1 * (1.0 - b + b * length / average) for length in lengths]
    terms = sorted(set(query_terms))
    zeros = [0] * len(terms)
    rows = []  # per document, the frequency of each query term (summed over its parts)
    for doc in documents:
        parts = doc.parts
        if not parts:
            rows.append(zeros)
            continue
        row = list(map(parts[0].counts.get, terms, zeros))
        for part in parts[1:]:
            row = list(map(add, row, map(part.counts.get, terms, zeros)))
        rows.append(row)
    boost = k1 + 1.0
    for column in zip(*rows) if rows else ():  # each query term's frequency per document
        df = n - column.count(0)
        if df == 0:
            continue
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        for i, tf in enumerate(column):
            if tf:
                scores[i] += idf * tf * boost / (tf + norms[i])
    return scores
