"""What the support check (SPEC §11) needs of a supporting passage, found as it is chosen.

The citations stage has every citing sentence's content terms and, per source, which terms
each chunk sentence holds (`services.citations.passages.SourceIndex`). From those, for each
(sentence, source) pair, the lexical check of services.verification needs only: how many
terms the sentence has, which of them the passage lacks (and which of those the whole source
lacks), and whether the passage holds a negation. They ride on the passage, so the spans
stage judges without reading the source again.

They are left out (`terms` null) when the sentence or a chunk of the source would read other
words in the canonical form the check reads (NFKC, ignorable characters, line-end
hyphenation): the check then reads the texts itself.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from schemas.answers import Chunk
from services.text.extraction import Extracted
from services.text.lexical import _ascii_words, fold_punctuation, words
from services.text.normalize import IGNORABLE, has_break_hyphen
from services.verification.claims import has_digit, negates, numbers_of


def reads_as_is(text: str) -> bool:
    """Whether `text` has the same words in canonical form (services.verification.sources
    reads such a piece as it is)."""
    if fold_punctuation(text).isascii():
        return not has_break_hyphen(text)
    return (
        unicodedata.is_normalized("NFKC", text)
        and not any(ch in text for ch in IGNORABLE)
        and not has_break_hyphen(text)
    )


def sentence_reads_as_is(text: str) -> bool:
    """Whether an answer sentence has the same words in canonical form (claims are read in
    NFKC without ignorable characters; no line-end hyphenation is undone in them)."""
    if text.isascii():
        return True
    return unicodedata.is_normalized("NFKC", text) and not any(ch in text for ch in IGNORABLE)


@dataclass(slots=True)
class SentenceCheck:
    """What the check reads of an answer sentence besides its terms."""

    negated: bool
    numbers: frozenset[str]  # its digit tokens (single digits too)


class SentenceReader:
    """Reads the answer's sentences for the check: the text with citation clusters blanked,
    tokenized once for the whole answer when it is ASCII after folding punctuation (as
    `services.text.lexical.span_terms` does), else sentence by sentence."""

    __slots__ = ("_prepared", "_text")

    def __init__(self, extracted: Extracted) -> None:
        self._text = fold_punctuation(blanked_text(extracted))  # same length
        self._prepared = _ascii_words(self._text) if self._text.isascii() else None

    def check(self, start: int, end: int) -> SentenceCheck:
        """The negation and numbers of the sentence at `[start, end)`."""
        prepared = self._prepared
        tokens = words(self._text[start:end]) if prepared is None else (
            prepared[start:end].split()
        )
        if has_digit(self._text[start:end]):
            return SentenceCheck(negates(tokens), frozenset(numbers_of(tokens)))
        return SentenceCheck(negates(tokens), _NO_NUMBERS)


_NO_NUMBERS: frozenset[str] = frozenset()


def blanked_text(extracted: Extracted) -> str:
    """The answer's text with every citation cluster blanked (offsets unchanged)."""
    text = extracted.text
    pieces: list[str] = []
    done = 0
    for cluster in extracted.clusters:
        pieces += (text[done : cluster.start], " " * (cluster.end - cluster.start))
        done = cluster.end
    pieces.append(text[done:])
    return "".join(pieces)


def source_numbers(chunks: Sequence[Chunk]) -> frozenset[str]:
    """Every number (digit token) of a source's chunks."""
    return frozenset(
        number
        for chunk in chunks
        if has_digit(chunk.text)
        for number in numbers_of(words(chunk.text))
    )


def negated(
    chunks: Sequence[Chunk],
    windows: Sequence[tuple[int, int, int]],
    flags: list[bool | None],
    first: int,
    last: int,
) -> bool:
    """Whether windows `first`..`last` hold a negation (each window read once)."""
    for number in range(first, last + 1):
        flag = flags[number]
        if flag is None:
            position, start, end = windows[number]
            flag = flags[number] = negates(words(chunks[position].text[start:end]))
        if flag:
            return True
    return False


def check_values(
    terms: set[str],
    sentence: SentenceCheck,
    bits: dict[str, int],
    known: int,
    covered: int,
    passage_negated: bool,
    numbers: Callable[[], tuple[frozenset[str], frozenset[str]]],
    several: bool,
) -> dict[str, Any]:
    """The check's fields of one passage (`SupportingPassage.terms` etc.): the sentence's
    `terms` and check, the source's term bits, the bits of the sentence's terms the source
    holds (`known`) and the passage holds (`covered`), whether the passage negates, its
    and the source's numbers (called only when the sentence has numbers), and whether the
    sentence cites several sources (its lacking items are then listed, for the check of
    the sources together). The figures are those of services.verification.support.assess
    over the sentence's items (terms and numbers)."""
    size = len(terms)
    held = known.bit_count()
    lacking_count = held - covered.bit_count()
    absent: list[str] = []
    lacking: list[str] = []
    if held < size or (several and lacking_count):
        get = bits.get
        for term in terms:
            bit = get(term)
            if bit is None:
                absent.append(term)
            elif several and not bit & covered:
                lacking.append(term)
    conflicts: list[str] = []
    claimed = sentence.numbers
    if claimed:
        # Numbers of two digits or more are terms already (found or not like any term);
        # single digits are items of their own, looked up among the digit tokens.
        in_source, in_passage = numbers()
        unfound = False
        for number in claimed:
            if number in terms:
                unfound = unfound or number not in bits
                continue
            size += 1
            if number not in in_source:
                absent.append(number)
                unfound = True
            elif number not in in_passage:
                lacking_count += 1
                if several:
                    lacking.append(number)
        if unfound and not in_passage <= claimed:
            conflicts.append("number")
    if sentence.negated != passage_negated:
        conflicts.append("negation")
    return {
        "terms": size,
        "absent": absent,
        "lacking": lacking_count,
        "lacking_items": lacking,
        "negated": passage_negated,
        "conflicts": conflicts,
    }
