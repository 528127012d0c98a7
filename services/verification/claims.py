"""What a claim asserts, read lexically: its content terms, numbers and negation.

Claims are read in NFKC without ignorable characters (soft hyphens, zero-width characters):
the part of span resolution's canonical form (services.text.normalize) that changes words, so
a ligature or a compatibility form reads the same in the claim and in the source (quotes and
dashes separate words either way; line-end hyphenation is not expected inside a claim). Terms are those of services.text.lexical (stopwords dropped, plurals folded);
numbers are digit runs, so single digits count too (`5 years`), and `12,717` reads as `12`
and `717` on both sides.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from services.text.lexical import stem, terms_of, words
from services.text.normalize import IGNORABLE

# Words that negate what they govern; `t` is what `n't` leaves (`don't` -> `don`, `t`).
NEGATIONS = frozenset(
    ["not", "no", "never", "none", "nor", "neither", "cannot", "without", "nothing", "nobody", "nowhere", "t"]
)
DIGITS = re.compile(r"\d+")
_SURFACE = re.compile(r"[^\W_]+")
_DROP_IGNORABLE = str.maketrans(dict.fromkeys(IGNORABLE))


@dataclass(frozen=True, slots=True)
class Claim:
    """A claim's canonical text and what the lexical check compares."""

    text: str
    items: frozenset[str]  # content terms and numbers: what a source must contain
    numbers: frozenset[str]
    negated: bool


def read_claim(text: str) -> Claim:
    """The claim in `text` (citation markers already removed)."""
    canonical = (
        text
        if text.isascii()
        else unicodedata.normalize("NFKC", text.translate(_DROP_IGNORABLE))
    )
    tokens = words(canonical)
    numbers = frozenset(DIGITS.findall(canonical))
    return Claim(
        canonical,
        frozenset(terms_of(tokens)) | numbers,
        numbers,
        not NEGATIONS.isdisjoint(tokens),
    )


def negated(text: str) -> bool:
    """Whether `text` holds a negation word."""
    return not NEGATIONS.isdisjoint(words(text))


def surface_words(claim: Claim, items: frozenset[str] | set[str]) -> list[str]:
    """The claim's own words (first spelling, claim order) for some of its `items`."""
    found: list[str] = []
    if not items:
        return found
    seen: set[str] = set()
    for word in _SURFACE.findall(claim.text):
        lower = word.lower()
        item = lower if lower in items else stem(lower)
        if item in items and item not in seen:
            seen.add(item)
            found.append(word)
    return found
