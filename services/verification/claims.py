"""What a claim asserts, read lexically: its content terms, numbers and negation.

Claims are read in NFKC without ignorable characters (soft hyphens, zero-width characters):
the part of span resolution's canonical form (services.text.normalize) that changes words, so
a ligature or a compatibility form reads the same in the claim and in the source (quotes and
dashes separate words either way; line-end hyphenation is not expected inside a claim).
Terms are those of services.text.lexical (stopwords dropped, plurals folded); numbers are the
word tokens made of digits, so single digits count too (`5 years`), and `12,717` reads as
`12` and `717` on both sides.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

from services.text.languages import ENGLISH_MARKS
from services.text.languages import NEGATIONS as OTHER_NEGATIONS
from services.text.lexical import terms_of, without_references, words
from services.text.normalize import IGNORABLE

# Words that negate what they govern; `t` is what `n't` leaves (`don't` -> `don`, `t`).
NEGATIONS = frozenset(
    {"not", "no", "never", "none", "nor", "neither", "cannot", "without", "nothing",
     "nobody", "nowhere", "t"}
)
_SURFACE = re.compile(r"[^\W_]+")
_WORD_END = re.compile(r"[^\W_]*")  # the rest of a word (`[^\W_]` is `str.isalnum`)
_DIGIT = re.compile(r"\d")
_ASCII_DIGITS = b"0123456789"
_DROP_IGNORABLE = str.maketrans(dict.fromkeys(IGNORABLE))


@dataclass(slots=True)
class Claim:
    """A claim's canonical text and what the lexical check compares (read-only; the
    dataclasses of this package are not frozen only because frozen ones cost more to build)."""

    text: str
    items: frozenset[str]  # content terms and numbers: what a source must contain
    numbers: frozenset[str]
    negated: bool
    # Each item's first spelling in the claim, in claim order (made on first use).
    _spellings: dict[str, str] | None = None

    def spellings(self) -> dict[str, str]:
        """Item -> the claim's own word for it (first spelling), in claim order."""
        if self._spellings is None:
            found: dict[str, str] = {}
            items = self.items
            for word in _SURFACE.findall(self.text):
                lower = word.lower()
                for item in (lower, *terms_of(words(lower))):
                    if item in items and item not in found:
                        found[item] = word
            self._spellings = found
        return self._spellings


def canonical_text(text: str) -> str:
    """`text` in NFKC without ignorable characters (ASCII text as it is)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text.translate(_DROP_IGNORABLE))


def read_items(
    canonical: str, language: str | None = None
) -> tuple[set[str], frozenset[str], bool]:
    """The content terms and numbers, the numbers, and whether it negates, of a canonical
    text (one tokenization), its terms those of `language` (detected when None)."""
    tokens = without_references(words(canonical))
    items, numbers = token_items(tokens, canonical, language)
    return items, numbers, negates(tokens)


def read_numbers(canonical: str) -> frozenset[str]:
    """The numbers of a canonical text: `read_items`' second part, without its terms."""
    if not has_digit(canonical):
        return frozenset()
    return frozenset(numbers_of(without_references(words(canonical))))


def token_items(
    tokens: list[str], canonical: str, language: str | None = None
) -> tuple[set[str], frozenset[str]]:
    """The content terms and numbers, and the numbers, of the word `tokens` (references
    removed) of a canonical text."""
    items = terms_of(tokens, language)
    if has_digit(canonical):
        numbers = frozenset(numbers_of(tokens))
        items |= numbers
    else:
        numbers = frozenset()
    return items, numbers


def read_claim(text: str) -> Claim:
    """The claim in `text` (citation markers already removed)."""
    canonical = canonical_text(text)
    items, numbers, negated = read_items(canonical)
    return Claim(canonical, frozenset(items), numbers, negated)


def numbers_of(tokens: list[str]) -> list[str]:
    """The tokens made of digits."""
    return [token for token in tokens if token.isdigit()]


def has_digit(text: str) -> bool:
    """Whether `text` has a digit (cheaper than looking at every token)."""
    if text.isascii():  # (its digits deleted in C: several times cheaper than the search)
        return len(text.encode().translate(None, _ASCII_DIGITS)) != len(text)
    return _DIGIT.search(text) is not None


# Every word `negates` can find a negation in: tokens that hold none negate nothing.
NEGATING = NEGATIONS | OTHER_NEGATIONS


def negates(tokens: list[str]) -> bool:
    """Whether the tokens hold a negation (another language's negations only where no
    English function word says the tokens are English: `non-verbal` negates nothing; `not
    only` adds, it does not negate)."""
    if not NEGATIONS.isdisjoint(tokens):
        if "only" not in tokens:
            return True
        if any(token in NEGATIONS and not (token == "not" and tokens[number + 1 : number + 2] == ["only"])
               for number, token in enumerate(tokens)):
            return True
    return ENGLISH_MARKS.isdisjoint(tokens) and not OTHER_NEGATIONS.isdisjoint(tokens)


def surface_words(text: str, items: Collection[str]) -> list[str]:
    """The claim's own words (first spelling, claim order) for some of its `items`: each
    item's first occurrence as the start of a word of `text` (a folded plural `studies`
    is found by `stud`), extended to the word's end; an item not found so is given as it
    is."""
    if not items:
        return []
    lower = text.lower()
    if len(lower) != len(text):  # a lowercase form of another length: read word by word
        return _spelled(read_claim(text), items)
    found: list[tuple[int, str]] = []
    size = len(text)
    for item in items:
        place = _word_start(lower, item)
        if place < 0 and len(item) > 3:
            place = _word_start(lower, item[:-1])
        if place < 0:
            found.append((size, item))
            continue
        end = _WORD_END.match(text, place + 1).end()  # type: ignore[union-attr]  # matches ""
        found.append((place, text[place:end]))
    found.sort()
    return [word for _, word in found]


def _word_start(lower: str, item: str) -> int:
    """Where `item` first begins a word of `lower`, or -1."""
    place = lower.find(item)
    while place > 0 and lower[place - 1].isalnum():
        place = lower.find(item, place + 1)
    return place


def _spelled(claim: Claim, items: Collection[str]) -> list[str]:
    """The claim's first spelling of each of `items`, in claim order (word by word)."""
    return [word for item, word in claim.spellings().items() if item in items]
