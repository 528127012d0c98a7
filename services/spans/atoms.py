"""The lexical verdicts of the answer's citations, made atom by atom
(services.verification.atoms) and placed in the answer and the sources.

A citation judged lexically (not verbatim, not unverifiable, not across languages) gets its
verdict, score and conflicts from its claim's atoms; each atom becomes an `Atom` of the
answer text with its own evidence window as a `SourceSpan` (together, the citation's
evidence set), and the missing words become `AnswerWord`s: the answer's own words at their
offsets in the answer text (`missing` lists the same words as strings, the older form).
The citation's `link` (its sentence's passage) and `better_source` stay as they were found;
a sentence of one atom whose passage the citations stage counted is judged from those
counts, the passage its atom's evidence (`Atom.link`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from schemas.construct import maker
from schemas.spans import AnswerWord, Atom, SourceSpan, Support
from services.spans.locators import Locators
from services.spans.resolve import source_span
from services.spans.sections import Piece, same_offset, utf16_offsets
from services.text.atoms import AtomSpan
from services.verification.atoms import (
    AtomsJudged,
    Counts,
    judge_atoms,
    judge_counted,
    one_atom,
)
from services.verification.sources import SourceView
from services.verification.support import Evidence, rounded_score

_word = maker(AnswerWord)
_atom = maker(Atom)


@dataclass(slots=True)
class Pending:
    """A citation whose verdict its atoms make: where its support entry is, its claim and
    where the claim starts in the answer text, the source it cites, and the counts of its
    sentence's passage there when the citations stage made them (with the claim's language
    when it is known)."""

    position: int
    claim: str
    offset: int
    source: int
    counts: Counts | None = None
    language: str | None = None  # the claim's, when known (the language its terms read in)


def with_atoms(
    support: list[Support | None],
    pending: Sequence[Pending],
    text: str,
    views: Callable[[int], SourceView | None],
    pieces: Callable[[int], list[Piece]],
    locators: Locators,
) -> None:
    """Remake the support entry of every pending citation from its atoms (in place)."""
    utf16: Callable[[int], int] | None = None
    singles: dict[str, AtomSpan | None] = {}  # claim -> its only atom (a claim cites often)
    for item in pending:
        entry = support[item.position]
        if entry is None:
            continue
        # A sentence of one atom with a counted passage: the passage is its evidence (no
        # source view to build); otherwise each atom finds its own in the source.
        single = None
        if item.counts is not None:
            if item.claim not in singles:
                singles[item.claim] = one_atom(item.claim)
            single = singles[item.claim]
        if single is not None and item.counts is not None:
            judged: AtomsJudged | None = judge_counted(
                item.claim, single, item.counts, item.language
            )
        else:
            view = views(item.source)
            judged = judge_atoms(item.claim, view) if view is not None else None
        if judged is None:
            continue
        if utf16 is None:
            utf16 = utf16_offsets(text)
        found = pieces(item.source) if single is None else []
        fields = entry.__dict__
        fields["verdict"] = judged.verdict
        fields["score"] = rounded_score(judged.score)
        fields["conflicts"] = list(judged.conflicts)
        fields["missing"], fields["missing_words"] = _answer_words(
            judged, text, item.offset, utf16
        )
        fields["atoms"] = [
            _atom(
                {
                    "text": text[item.offset + check.span.start : item.offset + check.span.end],
                    "start": item.offset + check.span.start,
                    "end": item.offset + check.span.end,
                    "verdict": check.verdict,
                    "link": fields["link"] if check.evidence is None else None,
                    "evidence": _span(check.evidence, found, locators),
                    "judge": check.judge,
                }
            )
            for check in judged.atoms
        ]


def _answer_words(
    judged: AtomsJudged, text: str, offset: int, utf16: Callable[[int], int]
) -> tuple[list[str], list[AnswerWord]]:
    """The missing words as strings and as answer words (offsets in the answer text), read
    once (the strings are not read back from the models)."""
    same = utf16 is same_offset  # (most texts: no call per offset)
    texts: list[str] = []
    words: list[AnswerWord] = []
    for start, end in judged.missing:
        start += offset
        end += offset
        word = text[start:end]
        texts.append(word)
        words.append(
            _word(
                {
                    "text": word,
                    "start": start,
                    "end": end,
                    "start_utf16": start if same else utf16(start),
                    "end_utf16": end if same else utf16(end),
                }
            )
        )
    return texts, words


def _span(evidence: Evidence | None, pieces: list[Piece], locators: Locators) -> SourceSpan | None:
    """An atom's evidence window as a span of its source (with its locator)."""
    if evidence is None or evidence.view is None:
        return None
    start, end = evidence.view.original_bounds(evidence.piece, evidence.start, evidence.end)
    return source_span(pieces[evidence.piece], start, end, locators)
