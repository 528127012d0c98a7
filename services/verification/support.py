"""The lexical support check of one claim against one or more sources.

The evidence in each source is its sentence window sharing most of the claim's items (the
first on ties), widened by the next and then the previous sentence of the same piece when
each adds items and the window stays within `MAX_EVIDENCE_CHARS`. The lexical score is the
mean of two coverages, the share of the claim's items found anywhere in the sources and the
share found in the evidence, halved for each kind of conflict:

- `number`: a number of the claim is in none of the sources while the evidence holds other
  numbers (a changed figure or date);
- `negation`: the claim is negated and the evidence's best sentence is not, or the reverse.

This is lexical support (the claim's words are where the citation points), not entailment: a
paraphrase with other words scores low, and a sentence built from the source's words but
saying something else can score high. A model judge (services.verification.nli) reads the
same evidence when one is configured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.text.lexical import words
from services.verification.claims import Claim, has_digit, negates, numbers_of
from services.verification.sources import SourceView, Window

MAX_EVIDENCE_CHARS = 600
CONFLICT_FACTOR = 0.5


@dataclass(slots=True)
class Evidence:
    """The evidence window in one source: `[start, end)` of canonical piece `piece`."""

    view: SourceView
    piece: int
    start: int
    end: int
    core: Window  # the best sentence inside it

    @property
    def text(self) -> str:
        """The window's canonical text."""
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


def best_window(items: frozenset[str], view: SourceView) -> tuple[Evidence, frozenset[str]]:
    """The evidence window of `view` for `items`, and the items it holds."""
    windows = view.windows
    counts = list(map(len, map(items.intersection, view.window_items)))
    best = counts.index(max(counts))
    core = windows[best]
    covered = items & core.items
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


def assess(claim: Claim, views: Sequence[SourceView]) -> Assessment:
    """The lexical check of `claim` against the sources `views` taken together."""
    items = claim.items
    if not items or not views:
        return Assessment(0.0, (), items, ())
    numbers = claim.numbers
    found: frozenset[str] = frozenset()
    in_evidence: frozenset[str] = frozenset()
    evidence: list[Evidence] = []
    negated = False
    others: set[str] = set()  # numbers of the evidence that the claim does not have
    for view in views:
        found |= items & view.vocabulary
        window, covered = best_window(items, view)
        evidence.append(window)
        in_evidence |= covered
        core = window.core
        if core.negated is None:
            core.negated = negates(words(view.texts[core.piece][core.start : core.end]))
        negated = negated or core.negated
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
