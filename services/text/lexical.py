"""Lexical similarity: the one tokenizer every stage matches with, content terms (stopwords
dropped, words stemmed, in the text's language) and Okapi BM25 over a handful of documents
(one answer's sources or chunks).

Every script is read (services.text.scripts: n-grams for scripts written without spaces,
combining marks inside words, digits of every script as ASCII); terms are those of the
text's language (services.text.languages: its stopwords and Snowball stemmer; English keeps
its own stopword list and plural stemmer).

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
from itertools import filterfalse, repeat
from operator import add
from typing import cast

from services.text import languages, scripts
from services.text.separators import ascii_word_text, fold_punctuation

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

# Words that frame or connect a claim rather than state it (`moreover`, `according`,
# `argues`, `important`): a source need not repeat them.
# The framing of an attribution (`a later critic argues`, `the novel opens by saying`) is
# no claim content either.
DISCOURSE: frozenset[str] = frozenset(
    """according additionally also although another argue argued argues certain conclusion
    consider considered considering especially example finally furthermore generally hence
    however important include included includes including indicate indicated indicates instance
    key main many mention mentioned mentions moreover much note noted notes often one others
    overall particularly possible potential report reported reports say said says saying see
    seen several sometimes state stated states suggest suggested suggests therefore thing
    things typically use used using usually various way ways well writes wrote opens critic
    critics narrator later help helps helped ensure ensures ensured explain explains explained
    describe describes described thus""".split()
)

# A claim that names its source by number (`as per passage 1`, `Passage ID 2 mentions`,
# `sources 1 and 3`) frames itself: the words and numbers are no claim content (the number is
# not the source's, and would count as a changed figure).
REFERENCE_WORDS: frozenset[str] = frozenset(
    """passage passages source sources document documents doc docs reference references ref
    excerpt excerpts snippet snippets result results citation citations quelle quellen
    dokument dokumente fuente fuentes documento documentos pasaje fonte fonti источник
    источники документ""".split()
)
_NUMBERING = frozenset("id no nr number nummer número".split())
_LISTING = frozenset("and or und oder et ou y o e и".split())

BM25_K1 = 1.2
BM25_B = 0.75

# A word of any script: letters and digits with their combining marks (and the joiners some
# scripts write inside words); services.text.scripts splits it into matching units.
_WORD = re.compile(rf"(?:[^\W_]|[{scripts.MARKS}\u200c\u200d])+")

# Bounded memos: surface word -> term ("" when it is not a content term), text -> statistics.
# Each is cleared whole when full: simple, and memory stays bounded.
_MAX_WORDS = 50_000
_MAX_TEXTS = 1_024
_TERM_OF: dict[str, str] = {}  # English (and undetermined) words
_TERMS_IN: dict[str, dict[str, str]] = {"en": _TERM_OF, languages.UNDETERMINED: _TERM_OF}
_TEXTS: dict[str, TextTerms] = {}
_UNITS: dict[str, list[str]] = {}  # non-ASCII word -> its matching units


def words(text: str) -> list[str]:
    """Lowercase word tokens: maximal runs of letters and digits (underscore separates);
    non-ASCII words as their matching units (services.text.scripts)."""
    if not text.isascii():
        text = fold_punctuation(text)
        if not text.isascii():
            return _units(_WORD.findall(text.lower()))
    return ascii_word_text(text).split()


def _units(tokens: list[str]) -> list[str]:
    """The matching units of word tokens (ASCII words are their own unit)."""
    found: list[str] = []
    for token in tokens:
        if token.isascii():
            found.append(token)
            continue
        units = _UNITS.get(token)
        if units is None:
            if len(_UNITS) >= _MAX_WORDS:
                _UNITS.clear()
            units = _UNITS[token] = scripts.split_word(token)
        found.extend(units)
    return found


def without_references(tokens: list[str]) -> list[str]:
    """`tokens` without the numbered references to sources among them (`REFERENCE_WORDS`);
    the same list when there are none."""
    if REFERENCE_WORDS.isdisjoint(tokens) or not any(map(str.isdigit, tokens)):
        return tokens  # (both tests run in C: the loop below runs only where both hold)
    kept: list[str] = []
    position, count = 0, len(tokens)
    while position < count:
        end = _reference_end(tokens, position)
        if end > position:
            position = end
        else:
            kept.append(tokens[position])
            position += 1
    return kept if len(kept) < count else tokens


def _reference_end(tokens: list[str], start: int) -> int:
    """Where the numbered reference at `start` ends (`passage 1`, `source id 2`, `sources 1
    and 3`); `start` when none starts there."""
    if tokens[start] not in REFERENCE_WORDS:
        return start
    count = len(tokens)
    position = start + 1
    if position < count and tokens[position] in _NUMBERING:
        position += 1
    end = start
    while position < count and tokens[position].isdigit():
        end = position = position + 1
        if position + 1 < count and tokens[position] in _LISTING and tokens[position + 1].isdigit():
            position += 1
    return end


def span_tokens(text: str, spans: Iterable[tuple[int, int]]) -> list[list[str]]:
    """The word tokens (`words`) of several `[start, end)` slices of one text (e.g. its
    sentences), preparing the whole text once instead of every slice."""
    folded = fold_punctuation(text)
    if not folded.isascii():
        return [words(folded[start:end]) for start, end in spans]
    prepared = ascii_word_text(folded)  # same length: offsets hold
    return [prepared[start:end].split() for start, end in spans]


def span_terms(text: str, spans: Iterable[tuple[int, int]]) -> list[set[str]]:
    """The content terms of several `[start, end)` slices of one text (`span_tokens`)."""
    tokens = span_tokens(text, spans)
    return terms_of_each(tokens, set().union(*tokens), text.isascii())


def stem(word: str) -> str:
    """The English stem of a lowercase ASCII word: Snowball's English (Porter2) stemmer, with
    the irregular forms it leaves apart (`goes` -> `go`)."""
    return _IRREGULAR.get(word) or _ENGLISH.stemWord(word)


_ENGLISH = languages.stemmer("en")
_IRREGULAR = {
    "goes": "go", "went": "go", "gone": "go", "ran": "run", "began": "begin",
    "begun": "begin", "grew": "grow", "grown": "grow", "wrote": "write", "written": "write",
    "took": "take", "taken": "take", "gave": "give", "given": "give", "made": "make",
    "found": "find", "built": "build", "led": "lead", "fell": "fall", "fallen": "fall",
    "rose": "rise", "risen": "rise", "children": "child", "people": "person", "men": "man",
    "women": "woman", "mice": "mouse", "feet": "foot", "teeth": "tooth",
    # month abbreviations read as their month (`Dec.` is `December`; `mar`, `may`, `jun`
    # and `jul` are words of their own)
    **{short: _ENGLISH.stemWord(month) for short, month in (
        ("jan", "january"), ("feb", "february"), ("apr", "april"), ("aug", "august"),
        ("sep", "september"), ("sept", "september"), ("oct", "october"),
        ("nov", "november"), ("dec", "december"))},
}


def _term(word: str) -> str:
    """The English content term of one surface word, or "" for a stopword or a 1-character
    word."""
    if len(word) < 2 or word in STOPWORDS or word in DISCOURSE:
        return ""
    if word.isascii():
        return stem(word)
    return languages.term(word, "en")


def _memo(language: str) -> dict[str, str]:
    """The term memo of `language`."""
    memo = _TERMS_IN.get(language)
    if memo is None:
        memo = _TERMS_IN[language] = {}
    return memo


def _learn(unique: AbstractSet[str], language: str = "en") -> dict[str, str]:
    """Make sure every word of `unique` is in the term memo of `language`; returns it."""
    memo = _memo(language)
    missing = list(filterfalse(memo.__contains__, unique))
    if missing:
        if len(memo) + len(missing) > _MAX_WORDS:
            memo.clear()
            missing = list(unique)
        if memo is _TERM_OF:
            for word in missing:
                memo[word] = _term(word)
        else:
            for word in missing:
                memo[word] = languages.term(word, language)
    return memo


def tokens_language(surface: Collection[str]) -> str:
    """The language whose terms `surface` (word tokens of one text) reads as: English when
    an English function word is among them (no detection), else detected
    (services.text.languages) from the tokens."""
    if not languages.ENGLISH_MARKS.isdisjoint(surface):
        return "en"
    if len(surface) < 3:
        return languages.UNDETERMINED
    return languages.language_of(" ".join(surface), surface)


def terms_of(
    surface: Collection[str], language: str | None = None, ascii: bool = False
) -> set[str]:
    """The content terms of some surface words in `language` (detected from the words when
    None; `ascii`: the caller knows the words are ASCII): stopwords and 1-character words
    dropped, words stemmed."""
    if language is None:
        english = languages.reads_english(surface, ascii)
        language = "en" if english else tokens_language(surface)
    memo = _TERMS_IN.get(language) or _learn(frozenset(), language)
    seen = set(map(memo.get, surface))
    if None in seen:
        unique = set(surface)
        memo = _learn(unique, language)
        found = set(map(memo.__getitem__, unique))
    else:
        found = cast("set[str]", seen)  # every word was known: only terms
    found.discard("")
    return found


def terms_of_each(
    tokens: Sequence[Collection[str]], unique: AbstractSet[str], ascii: bool = False
) -> list[set[str]]:
    """`terms_of` of each of several token lists of one text (`unique`: every word among
    them; `ascii`: the caller knows they are ASCII), each in its own language. Words that
    read as English (or undetermined: the same terms) read so in any part of them too (no
    more function words, the same script): then the language is decided and the words are
    learnt once for all the lists, not once per list."""
    if not languages.reads_english(unique, ascii):
        return [terms_of(surface, None, ascii) for surface in tokens]
    found = list(map(set, map(map, repeat(_learn(unique).__getitem__), tokens)))
    for terms in found:
        terms.discard("")
    return found


def term_list(surface: Sequence[str], language: str) -> list[str]:
    """The term of each lowercase surface word in `language`, in order ("" for a stopword
    or a 1-character word): the memo read with C-level `map`."""
    memo = _TERMS_IN.get(language)
    if memo is None or not all(map(memo.__contains__, surface)):
        memo = _learn(set(surface), language)
    return list(map(memo.__getitem__, surface))


def text_terms(text: str) -> set[str]:
    """The content terms of a text."""
    return terms_of(words(text))


NO_NAMES: frozenset[str] = frozenset()
_NAMES: dict[tuple[str, ...], frozenset[str]] = {}


def name_terms(title: str | None, authors: Sequence[str] = ()) -> frozenset[str]:
    """The content terms of a source's own name: its title and authors (memoised, bounded).
    A claim that names its source (`the novel Moby-Dick opens by saying`, `Kraut argues`)
    frames itself with them: every passage of the source holds them."""
    key = (title or "", *authors)
    found = _NAMES.get(key)
    if found is None:
        found = frozenset(text_terms(" ".join(key))) if any(key) else NO_NAMES
        if len(_NAMES) >= _MAX_TEXTS:
            _NAMES.clear()
        _NAMES[key] = found
    return found


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
    plain = text.isascii()  # then so are its words (not joined to find out)
    language = "en" if languages.reads_english(tokens, plain) else tokens_language(tokens)
    memo = _TERMS_IN.get(language) or _learn(frozenset(), language)
    counts = _counts(map(memo.get, tokens))
    if None in counts:  # words never seen before: learn them, count again
        memo = _learn(set(tokens), language)
        counts = _counts(map(memo.__getitem__, tokens))
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
        for memo in _TERMS_IN.values():
            memo.clear()
        _UNITS.clear()


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
