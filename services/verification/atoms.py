"""A claim judged as its atoms (services.text.atoms), each against its own evidence.

Each atom's items (content terms and numbers, services.verification.claims) are looked for in
the sentence window of the source holding most of them (ties: the window holding most of the
whole claim's items, then the first), widened as any evidence is
(services.verification.support.best_window); windows of every chunk compete. A window that is
a heading (a title or metadata line, services.text.atoms.is_heading) is evidence only for an
atom that is a title: a quote, or a name (every word capitalised). A quote found word for word
in the source is `supported` by the verbatim judge.

The words of an atom that its evidence lacks and another sentence holds (two of them at
least, or a name or number: `_covers`; a title or metadata line only for what no sentence
holds; a line that dates the page for the atom's year) are backed there: each such
sentence is the evidence of an atom of its own, the words it backs, `supported`, shown in
the citation's evidence set. They are not missing words; the atom's verdict is still read
from its evidence and the set's (what it claims is stated where its words stand together,
not word by word across the page).

An atom is `supported` when its evidence holds at least `ATOM_SUPPORTED` of its items with no
conflict (`number`: a number of the atom the source lacks while its evidence has others, in
digits, in words or in CJK numerals, or a date of the atom no date of its evidence backs,
whatever their order; `negation`: the atom negates and its evidence does not, or the evidence
negates one of the atom's own items: the first content word after the negation, in its clause) and no fact the
source lacks (`_facts`), `unsupported` when it holds less than `ATOM_PARTIAL`, `partial`
otherwise. An atom's share counts its items held by its own evidence or by the evidence of
another atom (the claim's evidence set: a name said in one sentence, `he` in the next). The
claim is `unsupported` when every atom is, or when its atoms together (their item-weighted
share) hold less than `CLAIM_UNSUPPORTED` of their items (a part or two it shares with the
source among many it does not); `supported` when its atoms together (their
item-weighted share) hold at least `ATOM_SUPPORTED` of their items, no atom conflicts with
its evidence and none lacks a fact: a minor part the source words otherwise (`by their own
account`) does not undo a claim whose facts and most words are there; `partial` otherwise.
The claim's score is the mean of two shares, as the sentence check's is
(services.verification.support): the item-weighted mean of its atoms' (halved per kind of
conflict, and once more when an atom lacks a fact), and its items found anywhere in the
source. The missing words are the answer's own: the words of each atom whose items the
evidence set and its covers lack (only its facts, when it lacks one the source lacks; not
its past forms of verbs beside other words when it is not `unsupported`), as spans of the
claim text, taken as phrases (`_Phrases`; the whole atom as one when the source backs a
quarter of it at most, `_whole`), less the atom's topic (`_topic`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from services.text.atoms import (
    CLAUSE_WORDS,
    COORDINATORS,
    DEFINITE_ARTICLES,
    PART,
    QUOTE,
    AtomSpan,
    atoms,
    fold_blanks,
)
from services.text.languages import NEGATIONS as OTHER_NEGATIONS
from services.text.lexical import (
    term_list,
    terms_of,
    tokens_language,
    without_references,
    words,
)
from services.text.dates import WrittenDate, date_backed, dates_of, month_dates
from services.text.numbers import backed, stated_numbers, values_of, written_numbers
from services.text.numerals import has_numerals, numerals
from services.text.separators import ascii_word_text
from services.text.verbs import may_hold, past_forms
from services.verification.claims import (
    NEGATIONS,
    canonical_text,
    has_digit,
    negates,
    read_items,
    read_numbers,
    token_items,
)
from services.verification.sources import SourceView
from services.verification.support import CONFLICT_FACTOR, Evidence, best_window

ATOM_SUPPORTED = 0.5
ATOM_PARTIAL = 0.4
CLAIM_UNSUPPORTED = 0.25
COVER_MIN = 2  # what a sentence must hold of an atom's lacking items to back them (`_covers`)
FILL = 2  # function words between two missing words that the phrase takes in
OPENS = 1  # function words that open a missing phrase
TOPIC_WORDS = 4  # content words an atom's topic holds at most (`_topic`)
WHOLE = 0.25  # the share of its items an atom holds at most to be missing whole (`_whole`)
_SURFACE = re.compile(r"[^\W_]+")
_ASCII_NAME = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z0-9]*")  # `_SURFACE` words, capitalised
_CLAUSES = re.compile(r"[,;:.!?\u3001\u3002\uff0c\uff1b\u060c]")
_NEGATING = NEGATIONS | OTHER_NEGATIONS
# Languages that capitalise every noun: a capital there says nothing of a name.
_CAPITALISED_NOUNS = frozenset({"de", "lb"})


@dataclass(slots=True)
class AtomCheck:
    """One atom against the source: its verdict, evidence and what the evidence lacks."""

    span: AtomSpan
    verdict: str
    judge: str
    evidence: Evidence | None
    items: frozenset[str]
    lacking: frozenset[str]
    conflicts: tuple[str, ...]
    share: float = 1.0  # of its items held (see `_settle`)
    unbacked: frozenset[str] = frozenset()  # items its own evidence lacks
    facts: frozenset[str] = frozenset()  # its names and numbers the source lacks (`_facts`)
    covers: list[AtomCheck] = field(default_factory=list)  # its words found elsewhere (`_covers`)
    states: frozenset[str] = frozenset()  # (a cover) facts of its atom it states exactly


@dataclass(slots=True)
class Counts:
    """What the citations stage counted of a claim against its passage
    (services.citations.checks): its `size` items, those the source lacks (`absent`), how
    many more the passage lacks (`lacking`, listed in `lacking_items` when known), and the
    conflicts with the passage."""

    size: int
    absent: Sequence[str]
    lacking: int
    lacking_items: Sequence[str]
    conflicts: Sequence[str]
    passage: str  # the passage's text (read for the lacking items when they are not listed)


@dataclass(slots=True)
class AtomsJudged:
    """The claim's verdict from its atoms, its score, and the missing words (claim spans)."""

    verdict: str
    score: float
    atoms: list[AtomCheck]
    conflicts: tuple[str, ...]
    missing: list[tuple[int, int]]


def judge_atoms(text: str, view: SourceView) -> AtomsJudged | None:
    """`text` judged atom by atom against `view`; None when no atom has anything to check."""
    spans = atoms(text)
    canonical = canonical_text(text)
    language = tokens_language(words(canonical))
    claim_items = frozenset(read_items(canonical, language)[0])
    checks: list[AtomCheck] = []
    for span in spans:
        check = _check(span, view, claim_items, language)
        if check is not None:
            checks.append(check)
    if not checks:
        return None
    # What the whole evidence set holds backs every atom (a name said in one sentence,
    # `he` in the next).
    held_by_set: set[str] = set()
    for check in checks:
        held_by_set |= check.items - check.lacking
        for cover in check.covers:
            held_by_set |= cover.states
    for check in checks:
        if check.judge != "verbatim":
            _settle(check, frozenset(held_by_set))
    total = sum(len(check.items) for check in checks)
    held = sum(len(check.items) * check.share for check in checks) / total if total else 1.0
    vocabulary = view.vocabulary
    anywhere = (
        len(claim_items & vocabulary) + len((claim_items - vocabulary) & view.numbers)
    ) / (len(claim_items) or total or 1)
    conflicts = tuple(sorted({kind for check in checks for kind in check.conflicts}))
    lacks = any(check.lacking & check.facts for check in checks)
    score = _score(held, anywhere, len(conflicts) + lacks)
    verdict = _claim_verdict(checks, held)
    missing: list[tuple[int, int]] = []
    for check in checks:
        if check.verdict != "supported" or check.unbacked:
            missing += _missing_words(
                text, check, _Language(text, language), view.vocabulary.__contains__
            )
    shown = [found for check in checks for found in (check, *check.covers)]
    return AtomsJudged(verdict, score, shown, conflicts, missing)


def _title(span: AtomSpan) -> bool:
    """Whether the atom is a title: a quote, or a name (every word capitalised or a number)."""
    if span.kind == QUOTE:
        return True
    found = _SURFACE.findall(span.claims)
    return bool(found) and all(word[0].isupper() or word[0].isdigit() for word in found)


def _check(
    span: AtomSpan, view: SourceView, claim: frozenset[str], language: str
) -> AtomCheck | None:
    """One atom against the source (None when it has no items and is no quote found word for
    word); its terms are those of the claim's language."""
    canonical = canonical_text(span.claims)
    found, numbers, negated = read_items(canonical, language)
    items = frozenset(found)
    if span.kind == QUOTE:  # (a quote of function words only, `We Had Him`, is one too)
        verbatim = _verbatim(fold_blanks(canonical).strip(), view)
        if verbatim is not None:
            return AtomCheck(span, "supported", "verbatim", verbatim, items, frozenset(), ())
    if not items:
        return None
    evidence, covered = best_window(items, view, _ranks(items, claim, view, _title(span)))
    window_text = evidence.text
    conflicts: list[str] = []
    held: set[str] = set()
    if numbers:
        held = _held_numbers(window_text, words(window_text))
        covered |= numbers & held
    absent = numbers - view.numbers - held  # (a CJK numeral of the window: `50万`)
    changed = False
    if items - covered:
        rescued, changed = _written(canonical, items, window_text, language)
        covered |= items & rescued
        absent -= rescued
    dates = dates_of(canonical) if numbers else []
    if numbers:
        rescued, redated = _dated(dates, window_text, language)
        covered |= items & rescued
        absent -= rescued
        changed = changed or redated
    if (absent and held - numbers) or changed:
        conflicts.append("number")
    if _disagrees(negated, window_text, items, language):
        conflicts.append("negation")
    named = _facts(span, numbers, language)
    check = AtomCheck(span, "", "lexical", evidence, items, items - covered, tuple(conflicts),
                      facts=named - view.vocabulary - view.numbers)
    if check.lacking or (view.headings and numbers):
        check.covers = _covers(check, named, dates, view, language)
    return check


def _covers(
    check: AtomCheck,
    named: frozenset[str],
    dates: list[WrittenDate],
    view: SourceView,
    language: str,
) -> list[AtomCheck]:
    """The other sentences of the source that back words of the atom its own evidence
    lacks, each as an atom of those words (`supported`, that sentence its evidence): the
    sentence holding most of the lacking items first, then the next for those left, while
    one holds `COVER_MIN` of them (a name or number of the atom counting twice: a fact is a
    claim of its own; a word alone is not one). A title or metadata line backs only items
    no other sentence holds: the part of the atom it backs is about the title (a name in a
    heading). Each line that dates the page (a heading writing a date, `Published Aug. 10,
    2014`) backs the atom's year when it is the year of its date, wherever else it is, and
    the atom's date when it is that day: a fact it `states`, which the claim's evidence set
    then holds."""
    remaining = set(check.lacking & view.vocabulary)
    window_items, headings = view.window_items, view.headings
    titled: set[str] | None = None  # items that only headings hold (read when needed)
    found: list[AtomCheck] = []
    years = {item for item in check.items & named if len(item) == 4 and item.isdigit()}
    for number in headings if years else ():
        window = view.windows[number]
        if years.isdisjoint(window_items[number]):
            continue
        written = dates_of(view.texts[window.piece][window.start : window.end])
        dated = years.intersection(str(day[0]) for date in written for day in date.days)
        if not dated:
            continue
        # (a line that dates the page: the atom's year is its date's year; the atom's own
        # day, when it is that line's, is a fact of the atom the page states)
        days = {item for date in dates if date_backed(date, written)
                for item in read_items(date.text, language)[0]} & check.items
        remaining -= dated | days
        found.append(_cover(check.span, dated | days, view, number, language))
        found[-1].states = frozenset(days)
    while remaining:
        ranks = [len(remaining & items) + len(remaining & items & named) for items in window_items]
        for number in headings:
            if ranks[number]:
                if titled is None:
                    titled = remaining - set().union(
                        *(items for items, window in zip(window_items, view.windows, strict=True)
                          if not window.heading)
                    )
                held = remaining & titled & window_items[number]
                ranks[number] = len(held) + len(held & named)
        best = max(ranks)
        if best < COVER_MIN:
            break
        number = ranks.index(best)
        window = view.windows[number]
        held = remaining & window_items[number]
        if window.heading:
            held &= titled or set()
        remaining -= held
        found.append(_cover(check.span, held, view, number, language))
    return found


def _cover(
    span: AtomSpan, held: set[str], view: SourceView, number: int, language: str
) -> AtomCheck:
    """The words of the atom with the `held` items, backed by window `number` of `view`."""
    window = view.windows[number]
    evidence = Evidence(view, window.piece, window.start, window.end, window)
    return AtomCheck(_words_of(span, held, language), "supported", "lexical", evidence,
                     frozenset(held), frozenset(), ())


def _words_of(span: AtomSpan, items: set[str], language: str) -> AtomSpan:
    """The part of the atom from its first to its last word with one of `items` (the whole
    atom when none is found word by word)."""
    low = high = -1
    for match in _SURFACE.finditer(span.claims):
        if _lacking_part(match.group(), frozenset(items), language)[0]:
            if low < 0:
                low = match.start()
            high = match.end()
    if low < 0:
        return span
    return AtomSpan(span.start + low, span.start + high, PART, span.claims[low:high])


def _disagrees(negated: bool, text: str, items: frozenset[str], language: str) -> bool:
    """Whether an atom (`negated` or not, of `items`) and its evidence `text` disagree on
    negation: the atom negates and its evidence does not, or the evidence negates one of the
    atom's own items (the first content word after a negation, in the same clause: `would
    not start the race` negates `start`). A negation elsewhere in the window (`did not
    blame` beside the sentence that backs the atom; `all faiths and none, from over a dozen
    countries`) is no conflict."""
    if not negates(words(text)):
        return negated
    if negated:
        return False
    for clause in _CLAUSES.split(text):
        tokens = words(clause)
        if _NEGATING.isdisjoint(tokens):
            continue
        terms = term_list(tokens, language)
        for number, token in enumerate(tokens):
            if token in _NEGATING:
                governed = next((term for term in terms[number + 1 :] if term), "")
                if governed in items:
                    return True
    return False


def _facts(span: AtomSpan, numbers: frozenset[str], language: str) -> frozenset[str]:
    """The checkable facts inside an atom, as its terms: its numbers and its names (words
    written with a capital that do not open the sentence, in languages whose capitals mark
    names). An atom whose source lacks one of them is not `supported`, however many of its
    other words the source holds: the fact is a claim of its own."""
    if language in _CAPITALISED_NOUNS:
        return numbers
    claims = span.claims
    if claims.isascii():  # (the capitalised words found in C, not word by word)
        opens = span.start == 0  # (the atom opens the sentence: its first word is no name)
        if (claims[1:] if opens else claims).islower():
            return numbers  # (no capital where a name could start: no scan of the atom)
        names = _ASCII_NAME.findall(claims)
        if names and opens and claims[0].isupper():
            del names[0]  # (the word opening the sentence)
    else:
        names = [match.group() for match in _SURFACE.finditer(claims)
                 if match.group()[0].isupper() and not (span.start == 0 and match.start() == 0)]
    if not names:
        return numbers
    return numbers | frozenset(read_items(canonical_text(" ".join(names)), language)[0])


def _settle(check: AtomCheck, held_by_set: frozenset[str]) -> None:
    """The atom's verdict from its items in its evidence or the claim's evidence set."""
    items = check.items
    lacking = check.lacking - held_by_set
    share = (len(items) - len(lacking)) / len(items)
    check.unbacked = check.lacking
    check.lacking = lacking
    check.verdict = _atom_verdict(share, bool(check.conflicts), bool(lacking & check.facts))
    check.share = share


def _claim_verdict(checks: list[AtomCheck], held: float) -> str:
    """The claim's verdict from its atoms (see the module docstring)."""
    if held < CLAIM_UNSUPPORTED or all(check.verdict == "unsupported" for check in checks):
        return "unsupported"
    if held < ATOM_SUPPORTED or any(
        check.conflicts or check.lacking & check.facts for check in checks
    ):
        return "partial"
    return "supported"


def _atom_verdict(share: float, conflicts: bool, lacks_fact: bool = False) -> str:
    """An atom's verdict from the share of its items its evidence holds."""
    if share >= ATOM_SUPPORTED and not conflicts and not lacks_fact:
        return "supported"
    return "unsupported" if share < ATOM_PARTIAL else "partial"


def _score(held: float, anywhere: float, flaws: int) -> float:
    """The claim's score (see the module docstring): `flaws` kinds of conflict, and one
    more for a fact the source lacks."""
    return (held * CONFLICT_FACTOR**flaws + anywhere) / 2


def one_atom(text: str) -> AtomSpan | None:
    """The sentence's only atom when it has one part and no quote, else None."""
    spans = atoms(text)
    return spans[0] if len(spans) == 1 and spans[0].kind != QUOTE else None


def judge_counted(
    text: str, span: AtomSpan, counts: Counts, known: str | None = None
) -> AtomsJudged:
    """A sentence of one atom judged from the counts of its passage, the atom's evidence:
    the verdict, score and missing words `judge_atoms` gives an atom whose evidence is that
    passage (`known`: the claim's language, when the caller has it)."""
    size, absent, lacking = counts.size, counts.absent, counts.lacking
    listed = counts.lacking_items
    language = _Language(text, known)
    if lacking > len(listed):  # not listed: read from the passage
        # (the claim's words read once: for its language and its items)
        canonical = canonical_text(text)
        tokens = words(canonical)
        language = _Language(text, tokens_language(tokens))
        claim = token_items(without_references(tokens), canonical, language.get())[0]
        passage = canonical_text(counts.passage)
        held = token_items(without_references(words(passage)), passage, language.get())[0]
        listed = sorted(claim - held)
    conflicts = counts.conflicts
    if conflicts:  # (rare: read again by the atom's rules, from the passage alone)
        conflicts = _reread(span, conflicts, counts.passage, language.get())
    digits = has_digit(span.claims)
    if digits or has_numerals(span.claims):  # (numbers as people write them)
        absent, listed, lacking, changed = _counted_numbers(
            span, absent, listed, lacking, counts.passage, language.get()
        )
        if changed and "number" not in conflicts:
            conflicts = [*conflicts, "number"]
    share = (size - len(absent) - lacking) / size
    anywhere = (size - len(absent)) / size
    unbacked = frozenset([*absent, *listed])
    facts: frozenset[str] = frozenset()
    if absent:  # (only a fact the whole source lacks keeps the atom from `supported`)
        # (ASCII without a digit has no number: not read again)
        numbers = (
            read_numbers(canonical_text(span.claims))
            if digits or not span.claims.isascii()
            else frozenset()
        )
        facts = frozenset(absent) & _facts(span, numbers, language.get())
    lacks_fact = bool(facts)
    check = AtomCheck(span, _atom_verdict(share, bool(conflicts), lacks_fact), "lexical", None,
                      frozenset(), unbacked, tuple(conflicts), share, unbacked, facts)
    missing: list[tuple[int, int]] = []
    if unbacked:
        unheld = frozenset(absent)
        missing = _missing_words(
            text, check, language, lambda term: term not in unheld, digits
        )
    score = _score(share, anywhere, len(conflicts) + lacks_fact)
    return AtomsJudged(check.verdict, score, [check], tuple(conflicts), missing)


def _counted_numbers(
    span: AtomSpan,
    absent: Sequence[str],
    listed: Sequence[str],
    lacking: int,
    passage: str,
    language: str,
) -> tuple[Sequence[str], Sequence[str], int, bool]:
    """The items a one-atom claim lacks (`absent` from the source; `listed` of the
    `lacking` its passage lacks) less those stating a number or a date that the passage
    backs however it is written, and whether the passage changes one: `_check`'s reading of
    numbers and dates, with the passage as evidence."""
    canonical = canonical_text(span.claims)
    rescued: set[str] = set()
    changed = False
    if absent or listed:
        items = frozenset(read_items(canonical, language)[0])
        rescued, changed = _written(canonical, items, passage, language)
    dated, redated = _dated(dates_of(canonical), passage, language)
    rescued |= dated
    if rescued:
        kept = [item for item in listed if item not in rescued]
        lacking -= len(listed) - len(kept)
        absent, listed = [item for item in absent if item not in rescued], kept
    return absent, listed, lacking, changed or redated


def _reread(span: AtomSpan, conflicts: Sequence[str], passage: str, language: str) -> list[str]:
    """The conflicts the citations stage counted of a one-atom claim against its passage,
    kept where the atom's own rules find them too (a negation that governs the atom's
    items; a number that no value of the passage backs, however it is written); other
    kinds as they are."""
    canonical = canonical_text(span.claims)
    found, numbers, negated = read_items(canonical, language)
    items = frozenset(found)
    passage = canonical_text(passage)
    tokens = words(passage)
    kept: list[str] = []
    for kind in conflicts:
        if kind == "negation":
            if _disagrees(negated, passage, items, language):
                kept.append(kind)
        elif kind == "number":
            held = _held_numbers(passage, tokens)
            rescued, changed = _written(canonical, items, passage, language)
            dated, redated = _dated(dates_of(canonical), passage, language)
            if (numbers - held - rescued - dated and held - numbers) or changed or redated:
                kept.append(kind)
        else:
            kept.append(kind)
    return kept


def _held_numbers(window: str, tokens: list[str]) -> set[str]:
    """The numbers an evidence window (its word `tokens`) states: in digits
    (services.text.numbers.stated_numbers) and in CJK numerals, as digits (`50万` states
    `500000`)."""
    held = set(stated_numbers(tokens)) if has_digit(window) else set()
    held.update(numeral.digits() for numeral in numerals(window))
    return held


def _written(
    canonical: str, items: frozenset[str], window: str, language: str
) -> tuple[set[str], bool]:
    """The atom's items that state a number as people write it (a decade, a shortened
    range, an approximation, a number in words or CJK numerals; services.text.numbers)
    which a value of the evidence window backs, and whether the window states other values
    for one it does not back (a changed figure)."""
    written, digits = written_numbers(canonical, language)
    if not written:
        return set(), False
    values = values_of(window, language)
    rescued: set[str] = set()
    unbacked: set[str] = set()
    for number in written:
        stated = read_items(number.text, language)[0]
        if backed(number, values):
            if digits != canonical and number.text not in canonical:  # written in words
                rescued |= items - read_items(digits, language)[0]
            rescued |= stated
        else:
            unbacked |= stated
    return rescued, bool(values) and bool(unbacked - rescued)


def _dated(dates: list[WrittenDate], window: str, language: str) -> tuple[set[str], bool]:
    """The items of the atom's `dates` (services.text.dates) that a date of the evidence
    window backs (`12 March 2001` by `2001-03-12`), and whether the window writes dates but
    none that backs one of the atom's (a changed day, month or year)."""
    if not dates:
        return set(), False
    others = dates_of(window)
    rescued: set[str] = set()
    unbacked = False
    for date in dates:
        if date_backed(date, others):
            rescued |= read_items(date.text, language)[0]
        else:
            unbacked = True
    return rescued, unbacked and bool(others)


def _ranks(
    items: frozenset[str], claim: frozenset[str], view: SourceView, title: bool
) -> list[int]:
    """Each window's rank as the atom's evidence: the atom's items it holds, then (on ties)
    the claim's; a heading ranks last unless the atom is a title."""
    ranks = list(map(len, map(items.intersection, view.window_items)))
    if not title:
        for number in view.headings:
            ranks[number] = -1
    best = max(ranks)
    if ranks.count(best) > 1 and len(claim) > len(items):
        ranks = [
            4096 * rank + (len(claim & own) if rank == best else 0)
            for rank, own in zip(ranks, view.window_items, strict=True)
        ]
    return ranks


def _verbatim(quote: str, view: SourceView) -> Evidence | None:
    """The window holding `quote` word for word (blanks and case aside), or None."""
    for piece, folded in enumerate(view.folded):
        place = folded.find(quote)
        if place < 0:
            continue
        # (folded offsets drift where blanks were folded: the nearest window is taken)
        for window in view.windows:
            if window.piece == piece and window.end > place:
                return Evidence(view, piece, window.start, window.end, window)
    return None


class _Language:
    """A claim's language, read when first asked (most missing words need none)."""

    __slots__ = ("_text", "_value")

    def __init__(self, text: str, value: str | None = None) -> None:
        self._text = text
        self._value = value

    def get(self) -> str:
        """The language (services.text.lexical.tokens_language of the claim's words)."""
        if self._value is None:
            self._value = tokens_language(words(canonical_text(self._text)))
        return self._value


def _missing_words(
    text: str,
    check: AtomCheck,
    language: _Language,
    held: Callable[[str], bool],
    digits: bool | None = None,
) -> list[tuple[int, int]]:
    """The spans of the atom's words whose items its evidence set lacks, as phrases
    (`_Phrases`): ASCII words by their terms (services.text.lexical.term_list), each
    lacking word looked for where it stands whole (`_ascii_missing`); other text word by
    word (units of a word written without spaces). Where an atom the source partly backs
    (not `unsupported`) lacks a fact the source lacks (a name or number, `_facts`), only
    its facts are missing: that is what the source does not back, and the atom's other
    words (its verb, the nouns a page words otherwise: `became an Armenian citizen` beside
    the day it lacks) are not marked beside it; lacking no fact, such an atom leaves its past
    forms of verbs unmarked beside its other missing words (the event worded otherwise,
    services.text.verbs). An atom the source backs `WHOLE` of at most is one phrase
    (`_whole`). A date is one fact (`_whole_dates`). The words of the atom's topic are not
    missing (`_topic`; `held`: whether the source holds a term; `digits`: whether the atom
    has a digit, when the caller knows)."""
    span = check.span
    lacking = check.lacking
    if check.covers:
        lacking = lacking.difference(*(cover.items for cover in check.covers))
    if not lacking:
        return []
    retold = check.verdict != "unsupported"  # (its verb is its event worded otherwise)
    if retold and lacking & check.facts:
        lacking = lacking & check.facts
    if not text.isascii():
        if retold and len(lacking) > 1:
            lacking = _without_verbs(span.claims, lacking, language.get())
        found = _word_by_word(text, check, lacking, language.get())
        if found:
            tokens, ends = _opening_units(text, span)
            opening = _topic(tokens, term_list(tokens, language.get()), held)
            if opening:
                found = [place for place in found if place[0] >= ends[opening - 1]]
    else:
        # (the pieces between single spaces, empty where spaces run: its words, and where
        # they stand, `_word_places`)
        folded = ascii_word_text(text)[span.start : span.end]
        pieces = folded.split(" ")
        lowered = list(filter(None, pieces))
        terms = term_list(lowered, language.get())
        # (the numbers of the words whose term or word is lacking)
        wanted = [
            number for number, term in enumerate(terms)
            if term in lacking or lowered[number] in lacking
        ]
        found = []
        if wanted:
            places = _word_places(pieces, span.start)
            if retold and len(wanted) > 1 and may_hold(folded, lacking, language.get()):
                # (the past forms of verbs written lowercase, `_without_verbs`, unless
                # nothing else is wanted)
                verbs = [
                    number for number in past_forms(lowered, terms, wanted, language.get())
                    if text[places[number][0]].islower()
                ]
                if verbs and len(verbs) < len(wanted):
                    wanted = [number for number in wanted if number not in verbs]
            found = _ascii_missing(text, span, wanted, places, lowered, terms, language.get())
            opening = _topic(lowered, terms, held) if found else 0
            if opening:
                end = places[opening - 1][1]
                found = [place for place in found if place[0] >= end]
    if found and check.share <= WHOLE:
        found = _whole(text, span, found, language.get())
    if digits is None:
        digits = has_digit(span.claims)
    return _whole_dates(text, span, found) if found and digits else found


def _without_verbs(claims: str, lacking: frozenset[str], language: str) -> frozenset[str]:
    """The `lacking` items of an atom (its words `claims`) less the terms of its past forms
    of verbs written lowercase (services.text.verbs), unless nothing else is lacking."""
    lowered = [word for word in _SURFACE.findall(claims) if word.islower()]
    terms = term_list(lowered, language)
    numbers = [number for number, term in enumerate(terms) if term in lacking]
    verbs = {terms[number] for number in past_forms(lowered, terms, numbers, language)}
    return lacking - verbs or lacking


def _whole(
    text: str, span: AtomSpan, found: list[tuple[int, int]], language: str
) -> list[tuple[int, int]]:
    """The missing words `found` of an atom the source backs at most `WHOLE` of, with every
    function word between the first and the last of them (no word of the clause, `_word`):
    the atom is a claim the source does not make, and a reader marks it as one phrase
    (`Accounts vary as to whether the words were written`: `as to whether the` beside the
    words the page lacks), not word by word as a clause whose other words the source holds."""
    have = set(found)
    added: list[tuple[int, int]] = []
    for match in _SURFACE.finditer(text, found[0][0], found[-1][0]):
        start, end = place = match.span()
        if (
            place not in have
            and _own(span, start)
            and _word(text, start, end)
            and _lacking_part(match.group(), frozenset(), language)[1]
        ):
            added.append(place)
    return sorted(found + added) if added else found


def _topic(tokens: list[str], terms: list[str], held: Callable[[str], bool]) -> int:
    """How many of an atom's first words (lowercase `tokens`, their `terms`) are its
    topic: the words it opens with up to its first function word after them (`The film`
    of `The film received nominations for`, `Collingwood retired` of `Collingwood retired
    from`), `TOPIC_WORDS` content words at most, when the source holds every one of them
    (`held`, by term) and none is a number; 0 when it has none. What a clause opens with
    is what it is about, given; what it says of it comes after (end focus), and that is
    what a reader marks when the source does not back it: the page names the film, and it
    is the six nominations it does not state. An atom that opens with a clause word (a
    pronoun or an auxiliary: `He appeared`) has no topic of words (its first content word
    is what it says); neither has one whose opening words the source lacks (`The icon of
    the Madonna`), nor one that opens with a number or a date (`In 2009`, `On October 9`),
    a fact of its own, nor one whose opening runs on past the words read (no function word
    ends it: a list of words is no topic)."""
    read = terms[: 2 * TOPIC_WORDS + 2]
    if "" not in read:  # (no function word among them: nothing ends a topic)
        return 0
    size = count = 0
    for token, term in zip(tokens, read):
        if not size and token in CLAUSE_WORDS or not token.isalpha() and has_digit(token):
            return 0
        if not term:
            if size:
                return count
        elif size < TOPIC_WORDS and held(term):
            size += 1
        else:
            return 0
        count += 1
    return 0


def _opening_units(text: str, span: AtomSpan) -> tuple[list[str], list[int]]:
    """The first words of the atom in text that is not ASCII, as lowercase units, and
    where each ends; up to a word written without spaces (CJK), whose units are no
    phrase, and `_topic`'s reading at most."""
    tokens: list[str] = []
    ends: list[int] = []
    for match in _SURFACE.finditer(text, span.start, span.end):
        units = words(canonical_text(match.group()))
        if len(units) != 1 or len(tokens) > 2 * TOPIC_WORDS + 1:
            break
        tokens.append(units[0])
        ends.append(match.end())
    return tokens, ends


def _whole_dates(
    text: str, span: AtomSpan, found: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The missing words `found` in the atom, with every word of a date written with a
    month name (services.text.dates.month_dates) one of whose words is missing: the date
    is one fact, and a reader marks it whole (`16 May 2001` against a page's `May 25
    2001`, not `16` alone)."""
    added: list[tuple[int, int]] = []
    for low, high in month_dates(span.claims):
        low, high = span.start + low, span.start + high
        if any(start < high and low < end for start, end in found):
            added += [
                match.span() for match in _SURFACE.finditer(text, low, high)
                if match.span() not in found
            ]
    return sorted(found + added) if added else found


def _word_places(pieces: list[str], offset: int) -> list[tuple[int, int]]:
    """Where each word of ASCII text folded by `ascii_word_text` (words and spaces only)
    stands, from its `pieces` between single spaces (empty where spaces run), offset by
    `offset`: the lengths place every word, without a search per word."""
    places: list[tuple[int, int]] = []
    place = offset
    for piece in pieces:
        end = place + len(piece)
        if piece:
            places.append((place, end))
        place = end + 1
    return places


def _ascii_missing(
    text: str,
    span: AtomSpan,
    wanted: list[int],
    places: list[tuple[int, int]],
    lowered: list[str],
    terms: list[str],
    language: str,
) -> list[tuple[int, int]]:
    """The places of the `wanted` words of the atom (their numbers, in order), as phrases:
    what `_Phrases` makes of the atom's words (in `language`), fed only the words where a
    wanted word stands and the function words just before it (or the one other word
    between it and the wanted word before). `places`, `lowered` and `terms` are the atom's
    words in ASCII `text`: where each stands, lowercase, and its term."""
    # (the words are placed once, by their lengths, `_word_places`: no search per word;
    # the phrase rule then reads only the words just before each wanted one)
    holes = span.kind != QUOTE and span.claims != text[span.start : span.end]
    phrases = _Phrases(text, language)
    previous = -1  # the number of the missing word before
    for number in wanted:
        place, end = places[number]
        if holes and not _own(span, place):
            continue
        if number - 1 == previous >= 0:
            # (right after the missing word before: no run, nothing held; `_Phrases.add`
            # would only lengthen the phrase, as this does)
            phrases.found.append(places[number])
            previous = number
            continue
        # The function words right before the word (a run back to the last other word),
        # FILL + 1 at most, read into the phrase rule as they stand in the text; or the
        # one other word right before it, when the missing word before is right before
        # that (it may bridge the two).
        run: list[tuple[int, int]] = []
        after_missing = opening = False
        held: tuple[int, int] | None = None
        before = number - 1
        while True:
            if before < 0:
                opening = True  # (the run opens the atom)
                break
            if len(run) > FILL:
                break
            if before == previous:
                after_missing = True
                break
            begin, stop = places[before]
            if holes and not _own(span, begin):
                break
            word = lowered[before]
            if terms[before] or word.isdigit():
                if not run and previous >= 0 and before == previous + 1:
                    held = (begin, stop)
                break
            if word in CLAUSE_WORDS or (begin and text[begin - 1] in "'\u2019"):
                break
            run.append((begin, stop))
            before -= 1
        if held is not None:
            phrases.add(*held, False, False)
        elif not after_missing:  # (the run opens after another word, or the atom's start)
            phrases.stop(opening)
        if run:
            for begin, stop in reversed(run):
                phrases.add(begin, stop, False, True)
        phrases.add(place, end, True, False)
        previous = number
    return phrases.found


class _Phrases:
    """An atom's missing words as whole phrases, as a reader marks what a source does not
    back: the function words (no term of their own) between two missing words (`FILL` at
    most: `of` in `water-gazers of Manhattan`, `as a` in `performance as a fighter pilot`)
    are missing too, but not a word of the clause (services.text.atoms.CLAUSE_WORDS: `was`
    of `was named`, `He` of `He appeared`). So is one word the source holds standing alone
    between two missing words: the phrase they make runs through it (`17th century fresco`
    against a page that has the century but neither of the others, `United States and
    Canada`). The `OPENS` function words before a missing phrase
    open it where they make it a phrase of its own: at the atom's start (`The following
    month`, `In 1997`), before a number or a date (`in 2015`, `on 16 May 2001`: the date's
    preposition is part of the fact), as a coordinator (`and Canada`: a member of a list), or
    as a definite article (`the following year`: a definite description names one thing),
    and an abbreviation (`v.`, `J.D.`: a word, not one that ties).
    Inside a clause, another article or preposition before missing words ties them to the
    clause's held words (`vied for spots`, `a founder member`, `graduated with distinction`):
    a reader marks the words, not what ties them (services.text.atoms.COORDINATORS and
    DEFINITE_ARTICLES, by language). Words are added in text order."""

    __slots__ = (
        "_after_missing", "_dates", "_held", "_language", "_opening", "_run", "_text", "found",
    )

    def __init__(self, text: str, language: str) -> None:
        self._text = text
        self._language = language
        self._run: list[tuple[int, int]] = []  # function words since the last content word
        self._after_missing = False  # whether that content word is missing
        self._held: tuple[int, int] | None = None  # a held word right after a missing one
        self._opening = True  # whether the run opens the atom (no other word before it)
        self._dates: list[tuple[int, int]] | None = None  # the text's dates (read when needed)
        self.found: list[tuple[int, int]] = []

    def add(self, start: int, end: int, missing: bool, function: bool) -> None:
        """The next word `[start, end)`: missing or not, a function word or not."""
        if missing:
            if self._held is not None:
                self.found.append(self._held)
                self._held = None
            run = self._run
            if run:
                if self._after_missing and len(run) <= FILL:
                    self.found += run
                else:
                    self._open(run[-OPENS:], start, end)
                self._run = []
            self.found.append((start, end))
            self._after_missing = True
            self._opening = False
            return
        if not _word(self._text, start, end):  # (`s` of `Jackson's` is no word of its own)
            self.stop()
        elif function:
            if self._held is not None:
                self.stop()
            self._run.append((start, end))
        elif self._after_missing and not self._run and self._held is None:
            self._held = (start, end)
        else:
            self.stop()

    def _open(self, opener: list[tuple[int, int]], start: int, end: int) -> None:
        """Add the function words `opener` before the missing word `[start, end)` where they
        open its phrase (see the class docstring)."""
        low, high = opener[-1]
        word = self._text[low:high].lower()
        if (
            self._opening
            or word in DEFINITE_ARTICLES.get(self._language, ())
            or word in COORDINATORS.get(self._language, ())
            or self._text[high : high + 1] == "."  # (an abbreviation: `v.`, `J.D.`)
            or self._fact(start, end)
        ):
            self.found += opener

    def _fact(self, start: int, end: int) -> bool:
        """Whether the word `[start, end)` writes a number or is in a date."""
        word = self._text[start:end]
        if has_digit(word) or has_numerals(word):
            return True
        if self._dates is None:
            self._dates = month_dates(self._text)
        return any(low <= start < high for low, high in self._dates)

    def stop(self, opening: bool = False) -> None:
        """A word that no phrase runs through (neither missing nor a function word that
        may open or fill one); `opening`: the words after it open the atom."""
        self._run = []
        self._after_missing = False
        self._held = None
        self._opening = opening


def _word(text: str, start: int, end: int) -> bool:
    """Whether `[start, end)` of `text` may be in a phrase: no word of the clause, no ending
    after an apostrophe."""
    return (not start or text[start - 1] not in "'\u2019") and (
        text[start:end].lower() not in CLAUSE_WORDS
    )


def _own(span: AtomSpan, position: int) -> bool:
    """Whether `position` of the claim is the atom's own (not a quote or parenthetical
    inside a part, which are atoms of their own)."""
    return span.kind == QUOTE or not span.claims[position - span.start].isspace()


def _word_by_word(
    text: str, check: AtomCheck, lacking: frozenset[str], language: str
) -> list[tuple[int, int]]:
    """The spans of the atom's words (or their units) whose items are `lacking`, as
    phrases."""
    span = check.span
    phrases = _Phrases(text, language)
    for match in _SURFACE.finditer(text, span.start, span.end):
        start = match.start()
        if not _own(span, start):
            phrases.stop()
            continue
        parts, function = _lacking_part(match.group(), lacking, language)
        if not parts:
            phrases.add(start, match.end(), False, function)
        for a, b in parts:
            phrases.add(start + a, start + b, True, False)
    return phrases.found


def _lacking_part(word: str, lacking: frozenset[str], language: str) -> tuple[list[tuple[int, int]], bool]:
    """The parts of surface `word` whose items are lacking (the whole word, or the units of
    a word written without spaces; none when none is), and whether it is a function word
    (no term of its own)."""
    units = words(canonical_text(word))
    if not units:
        return [], False
    terms = [terms_of([unit], language) | ({unit} if unit.isdigit() else set()) for unit in units]
    missing = [unit for unit, found in zip(units, terms, strict=True) if found & lacking]
    if not missing:
        return [], not any(terms)
    if len(units) == 1:
        return [(0, len(word))], False
    lower = word.lower()
    parts: list[tuple[int, int]] = []
    for unit in missing:
        place = lower.find(unit)
        if place < 0:
            return [(0, len(word))], False
        parts.append((place, place + len(unit)))
    return parts, False
