"""What the support check needs of a supporting passage, found as it is chosen.

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

from collections.abc import Sequence

from schemas.answers import Chunk
from services.text.extraction import Extracted
from services.text.lexical import words
from services.text.normalize import IGNORABLE, has_break_hyphen, same_words_in_nfkc
from services.text.separators import fold_punctuation
from services.verification.claims import NEGATING, has_digit, negates, numbers_of


def reads_as_is(text: str) -> bool:
    """Whether `text` has the same words in canonical form (services.verification.sources
    reads such a piece as it is)."""
    if fold_punctuation(text).isascii():
        return not has_break_hyphen(text)
    return (
        same_words_in_nfkc(text)
        and not any(ch in text for ch in IGNORABLE)
        and not has_break_hyphen(text)
    )


# What the check reads of an answer sentence besides its terms: whether it negates, and its
# digit tokens (single digits too). A tuple: one is made per citing sentence, and a class's
# `__init__` cost more than the rest of the check of it.
SentenceCheck = tuple[bool, frozenset[str]]


def sentence_check(extracted: Extracted, index: int) -> SentenceCheck | None:
    """What the check reads of answer sentence `index` besides its terms (from the tokens
    the extraction read its terms from); None when the sentence would read other words in
    canonical form (claims are read in NFKC without ignorable characters; no line-end
    hyphenation is undone in them)."""
    hit = extracted.sentences[index]
    text = hit.text
    # ASCII but for common separators (which separate words in canonical form too): the
    # same words, and its only digits are ASCII ones, all in its number tokens (no search
    # for a digit: it costs more than the tokens' own test).
    plain = extracted.folds_to_ascii() or fold_punctuation(text).isascii()
    if not plain and (
        not same_words_in_nfkc(text) or any(ch in text for ch in IGNORABLE)
    ):
        return None
    tokens = extracted.sentence_tokens(index)
    if plain or has_digit(extracted.without_markers()[hit.start : hit.end]):
        numbers = frozenset(filter(str.isdigit, tokens))  # (its `numbers_of`, in C)
    else:
        numbers = _NO_NUMBERS
    # (no negation word: `negates` would read the tokens three times to say so)
    return not NEGATING.isdisjoint(tokens) and negates(tokens), numbers


_NO_NUMBERS: frozenset[str] = frozenset()


def source_numbers(chunks: Sequence[Chunk]) -> frozenset[str]:
    """Every number (digit token) of a source's chunks."""
    return frozenset(
        number
        for chunk in chunks
        if has_digit(chunk.text)
        for number in numbers_of(words(chunk.text))
    )


# The check's fields of a passage (`SupportingPassage.terms`, `absent`, `lacking`,
# `lacking_items`, `negated`, `conflicts`), in that order.
CheckFields = tuple[int | None, list[str], int, list[str], bool, list[str]]


def unchecked() -> CheckFields:
    """The check's fields of a passage the check reads itself (`terms` null)."""
    return None, [], 0, [], False, []


def check_values(
    terms: set[str],
    sentence: SentenceCheck,
    bits: dict[str, int],
    known: int,
    covered: int,
    passage_negated: bool,
    numbers: tuple[frozenset[str], frozenset[str]] | None,
) -> CheckFields:
    """The check's fields of one passage: the sentence's `terms` and check, the source's
    term bits, the bits of the sentence's terms the source holds (`known`) and the passage
    holds (`covered`), whether the passage negates, the source's and the passage's numbers
    (given when the sentence has numbers). The lacking items are listed (the check of
    several sources together and the atoms' missing words read them). The figures are those of services.verification.support.assess over the sentence's items
    (terms and numbers)."""
    size = len(terms)
    held = known.bit_count()
    lacking_count = held - covered.bit_count()
    absent: list[str] = []
    lacking: list[str] = []
    if held < size or lacking_count:
        get = bits.get
        # In sorted order: a set's order of strings differs between processes, and the
        # lists are written into the event.
        for term in sorted(terms):
            bit = get(term)
            if bit is None:
                absent.append(term)
            elif not bit & covered:
                lacking.append(term)
    negated, claimed = sentence
    conflicts: list[str] = []
    if claimed:
        # Numbers of two digits or more are terms already (found or not like any term);
        # single digits are items of their own, looked up among the digit tokens.
        assert numbers is not None  # given whenever the sentence has numbers
        in_source, in_passage = numbers
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
                lacking.append(number)
        if unfound and not in_passage <= claimed:
            conflicts.append("number")
    if negated != passage_negated:
        conflicts.append("negation")
    return size, absent, lacking_count, lacking, passage_negated, conflicts
