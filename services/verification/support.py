"""The lexical support check of one claim against one or more sources.

The evidence in each source is the supporting passage the citations stage chose for the
claim's sentence and that source when the caller gives one (`Passage`: no second search, and
the evidence is that passage, with the locator its link already has); otherwise its sentence
window sharing most of the claim's items (the first on ties), widened by the next and then the
previous sentence of the same piece when each adds items and the window stays within
`MAX_EVIDENCE_CHARS` (the same rule the citations stage picks passages by). The lexical score is the
mean of two coverages, the share of the claim's items found anywhere in the sources and the
share found in the evidence, halved for each kind of conflict:

- `number`: a number of the claim is in none of the sources while the evidence holds other
  numbers (a changed figure or date);
- `negation`: the claim is negated and its evidence (the window or passage) is not, or the
  reverse.

This is lexical support (the claim's words are where the citation points), not entailment: a
paraphrase with other words scores low, and a sentence built from the source's words but
saying something else can score high. A model judge (services.verification.nli) reads the
same evidence when one is configured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.text.lexical import words
from services.verification.claims import (
    Claim,
    canonical_text,
    has_digit,
    negates,
    numbers_of,
    read_items,
)
from services.verification.sources import SourceView, Window

MAX_EVIDENCE_CHARS = 600
CONFLICT_FACTOR = 0.5
SCORE_DIGITS = 4  # a verdict's score is given to 4 digits
_MEMO_LIMIT = 1_024
_ROUNDED: dict[float, float] = {}


@dataclass(slots=True)
class Passage:
    """A supporting passage given as the evidence of a claim in one source: either read
    here (`items`), or counted where it was chosen (`terms`: the claim's item count; the
    claim's items the whole source lacks, `absent`; how many more the passage lacks,
    `lacking`, listed in `lacking_items` when known; the conflicts of the claim against
    this passage alone; see services.citations.checks)."""

    link: int  # what the caller names it by (the spans stage: its index in `links`)
    text: str
    items: set[str] | None  # content terms and every number (single digits too)
    negated: bool
    terms: int | None = None
    absent: list[str] | None = None
    lacking: int = 0
    lacking_items: list[str] | None = None
    conflicts: list[str] | None = None
    evidence: Evidence | None = None  # this passage as evidence (made once)


def read_passage(link: int, text: str) -> Passage:
    """The passage `text`, read as claims are (services.verification.claims)."""
    canonical = canonical_text(text)
    items, _, negated = read_items(canonical)
    return Passage(link, canonical, items, negated)


def counted(text: str, passages: Sequence[Passage]) -> Assessment | None:
    """The lexical check of claim `text` against counted passages (one per source), as
    `assess` finds it; None when it cannot be told from the counts (a passage not counted;
    several sources and a claim with numbers, or lacking items not listed)."""
    first = passages[0]
    size = first.terms
    absent_items = first.absent
    if size is None or absent_items is None or first.conflicts is None:
        return None
    if len(passages) == 1:
        absent = frozenset(absent_items)
        uncovered = len(absent) + first.lacking
        conflicts = tuple(first.conflicts)
    else:
        if has_digit(text):
            return None  # the number conflict of several sources is not in the counts
        claim_negated = first.negated != ("negation" in first.conflicts)
        negated = False
        missing: set[str] | None = None
        lacks: set[str] | None = None
        for passage in passages:
            listed = passage.lacking_items
            if (
                passage.terms != size
                or passage.absent is None
                or listed is None
                or len(listed) != passage.lacking
            ):
                return None
            negated = negated or passage.negated
            if missing is None or lacks is None:
                missing = set(passage.absent)
                lacks = missing | set(listed)
            else:
                missing.intersection_update(passage.absent)
                lacks.intersection_update(passage.absent + listed)
        absent = frozenset(missing or ())
        uncovered = len(lacks or ())
        conflicts = ("negation",) if claim_negated != negated else ()
    evidence = tuple(map(_as_evidence, passages))
    if not size:
        return Assessment(0.0, evidence, absent, ())
    return Assessment(
        counted_score(size, len(absent), uncovered, len(conflicts)), evidence, absent, conflicts
    )


def counted_score(size: int, absent: int, uncovered: int, conflicts: int) -> float:
    """The lexical score of a claim of `size` items (more than none) of which the sources
    lack `absent` and the evidence lacks `uncovered`, with `conflicts` kinds of conflict:
    `assess`'s mean of the two coverages, halved per conflict."""
    score = (2 * size - absent - uncovered) / (2 * size)
    if conflicts:
        score *= CONFLICT_FACTOR**conflicts
    return score


def rounded_score(score: float) -> float:
    """`score` to `SCORE_DIGITS` digits, remembered (bounded): `round` with digits goes
    through a decimal string, and the scores of small counts recur."""
    found = _ROUNDED.get(score)
    if found is None:
        if len(_ROUNDED) >= _MEMO_LIMIT:
            _ROUNDED.clear()
        found = _ROUNDED[score] = round(score, SCORE_DIGITS)
    return found


def _as_evidence(passage: Passage) -> Evidence:
    """The passage as evidence (made once)."""
    found = passage.evidence
    if found is None:
        found = passage.evidence = Evidence(None, 0, 0, 0, None, passage)
    return found


@dataclass(slots=True)
class Evidence:
    """The evidence in one source: a given passage (`passage`), or `[start, end)` of
    canonical piece `piece` of the view."""

    view: SourceView | None  # None for a counted passage
    piece: int
    start: int
    end: int
    core: Window | None  # the best sentence inside the window (None for a passage)
    passage: Passage | None = None

    @property
    def text(self) -> str:
        """The evidence's canonical text."""
        if self.passage is not None:
            return self.passage.text
        assert self.view is not None  # a window is in a view
        return self.view.texts[self.piece][self.start : self.end]


@dataclass(slots=True)
class Assessment:
    """What the lexical check found for a claim: one evidence window per source."""

    score: float
    evidence: tuple[Evidence, ...]
    missing: frozenset[str]
    conflicts: tuple[str, ...]

    @property
    def evidence_text(self) -> str:
        """The evidence windows' text, joined (what a model judge reads)."""
        return " ".join(evidence.text for evidence in self.evidence)


def best_window(
    items: frozenset[str], view: SourceView, ranks: Sequence[int] | None = None
) -> tuple[Evidence, frozenset[str]]:
    """The evidence window of `view` for `items`, and the items it holds: the window with
    the highest rank (by default, the count of the items it holds; the first on ties)."""
    windows = view.windows
    counts = ranks if ranks is not None else list(map(len, map(items.intersection, view.window_items)))
    best = counts.index(max(counts))
    core = windows[best]
    covered = items & core.items
    if view.names:
        covered |= items & view.names  # (every window holds them)
    first = last = core
    for neighbour in (best + 1, best - 1):
        if not 0 <= neighbour < len(windows) or covered == items:
            continue
        window = windows[neighbour]
        low, high = min(first.start, window.start), max(last.end, window.end)
        gained = (items & window.items) - covered
        if window.piece == core.piece and gained and high - low <= MAX_EVIDENCE_CHARS:
            covered |= gained
            first, last = (window, last) if neighbour < best else (first, window)
    return Evidence(view, core.piece, first.start, last.end, core), covered


def assess(
    claim: Claim,
    views: Sequence[SourceView],
    passages: Sequence[Passage | None] = (),
) -> Assessment:
    """The lexical check of `claim` against the sources `views` taken together; `passages`
    (one per view, when given) are the evidence where not None."""
    items = claim.items
    if not items or not views:
        return Assessment(0.0, (), items, ())
    numbers = claim.numbers
    found: frozenset[str] = frozenset()
    in_evidence: frozenset[str] = frozenset()
    evidence: list[Evidence] = []
    negated = False
    others: set[str] = set()  # numbers of the evidence that the claim does not have
    for number, view in enumerate(views):
        found |= items & view.vocabulary
        passage = passages[number] if passages else None
        if passage is not None and passage.items is not None:
            # the passage's items include its numbers: nothing else to read
            evidence.append(Evidence(view, 0, 0, 0, None, passage))
            in_evidence |= items & passage.items
            if view.names:
                in_evidence |= items & view.names  # (every passage holds them)
            negated = negated or passage.negated
            if numbers:
                found |= numbers & view.numbers
                others.update(
                    item for item in passage.items if item.isdigit() and item not in numbers
                )
            continue
        window, covered = best_window(items, view)
        evidence.append(window)
        in_evidence |= covered
        core = window.core
        assert core is not None  # a window always has its best sentence
        if window.start == core.start and window.end == core.end:
            if core.negated is None:
                core.negated = negates(words(view.texts[core.piece][core.start : core.end]))
            negated = negated or core.negated
        else:  # widened: the whole window, as a passage is read
            negated = negated or negates(words(window.text))
        if numbers:  # single digits are no terms: read the numbers themselves
            found |= numbers & view.numbers
            text = window.text
            held = set(numbers_of(words(text))) if has_digit(text) else set()
            in_evidence |= numbers & held
            others |= held - numbers
    conflicts: list[str] = []
    if numbers - found and others:
        conflicts.append("number")
    if claim.negated != negated:
        conflicts.append("negation")
    score = (len(found) + len(in_evidence)) / (2 * len(items))
    score *= CONFLICT_FACTOR ** len(conflicts)
    return Assessment(score, tuple(evidence), items - found, tuple(conflicts))
