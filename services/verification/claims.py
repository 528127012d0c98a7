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
from dataclasses import dataclass

from services.text.lexical import stem, terms_of, words
from services.text.normalize import IGNORABLE

# Words that negate what they govern; `t` is what `n't` leaves (`don't` -> `don`, `t`).
NEGATIONS = frozenset(
    {"not", "no", "never", "none", "nor", "neither", "cannot", "without", "nothing",
     "nobody", "nowhere", "t"}
)
_SURFACE = re.compile(r"[^\W_]+")
_DIGIT = re.compile(r"\d")
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
                # only a word ending in "s" stems to another term (lexical.stem)
                item = stem(lower) if lower not in items and lower[-1] == "s" else lower
                if item in items and item not in found:
                    found[item] = word
            self._spellings = found
        return self._spellings


def read_claim(text: str) -> Claim:
    """The claim in `text` (citation markers already removed)."""
    canonical = (
        text
        if text.isascii()
        else unicodedata.normalize("NFKC", text.translate(_DROP_IGNORABLE))
    )
    tokens = words(canonical)
    numbers = frozenset(numbers_of(tokens) if has_digit(canonical) else ())
    return Claim(
        canonical, frozenset(terms_of(tokens)) | numbers, numbers, negates(tokens)
    )


def numbers_of(tokens: list[str]) -> list[str]:
    """The tokens made of digits."""
    return [token for token in tokens if token.isdigit()]


def has_digit(text: str) -> bool:
    """Whether `text` has a digit (cheaper than looking at every token)."""
    return _DIGIT.search(text) is not None


def negates(tokens: list[str]) -> bool:
    """Whether the tokens hold a negation."""
    return not NEGATIONS.isdisjoint(tokens)


def surface_words(claim: Claim, items: frozenset[str] | set[str]) -> list[str]:
    """The claim's own words (first spelling, claim order) for some of its `items`."""
    if not items:
        return []
    return [word for item, word in claim.spellings().items() if item in items]
