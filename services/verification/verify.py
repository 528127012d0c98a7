"""Support verdicts for an answer's valid citations, and its ALCE citation quality.

Each citation's claim is judged against the source it cites (the spans stage passes the
citation's sentence, or, in a sentence with several citation clusters, the text its own
cluster closes). `unverifiable` when the source has no text or the claim no words to check;
`supported` by construction when the sentence is verbatim in the cited source. A citation not
supported (and scoring below `SEARCH_BELOW` lexically) gets a `better_source`: the other
supplied source (not cited in the same sentence) with the best lexical score (the lowest
index on ties) among the `CANDIDATES` holding most of the claim's items, when its judged
score beats the citation's own by `BETTER_MARGIN` and it at least partly supports the claim
(`clearly_better`). The citations stage makes the same search
for the only source of a sentence from its passage counts (services.citations.rivals).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from services.text.languages import language_of
from services.verification.claims import surface_words
from services.verification.crosslang import CROSS_LANGUAGE, crosses, decided_across
from services.verification.judges import Judge
from services.verification.memo import Judgements, Key
from services.verification.quality import (
    CitationQuality,
    SentenceClaim,
    citation_quality,
)
from services.verification.sources import SourceView
from services.verification.support import Evidence, Passage, rounded_score

BETTER_MARGIN = 0.15
# Only citations scoring below `SEARCH_BELOW` look for a better source, and only the
# `CANDIDATES` sources holding most of the claim are assessed (on the corpus's swaps, two
# find what searching every source finds: wrong-citation detection BA 0.883, 0.877 with one).
SEARCH_BELOW = 0.7
CANDIDATES = 2
VERBATIM_JUDGE = "verbatim"


@dataclass(slots=True)
class CitedClaim:
    """A valid citation to judge: its position among the citations, what it claims, and the
    sources cited in its sentence."""

    position: int
    source_index: int
    sentence_index: int
    text: str
    sentence_sources: tuple[int, ...]


@dataclass(slots=True)
class Outcome:
    """The verdict on one citation (`evidence` is None when verbatim or unverifiable)."""

    verdict: str
    score: float
    evidence: Evidence | None
    missing: list[str]
    conflicts: tuple[str, ...]
    better_source: int | None
    judge: str
    reason: str | None = None  # why `unverifiable` (or a cross-language `unsupported`)


@dataclass(slots=True)
class Verification:
    """Every citation's outcome by position, and the answer's citation quality."""

    outcomes: dict[int, Outcome]
    quality: CitationQuality
    judge: str


def verify(
    claims: Sequence[CitedClaim],
    sentences: Sequence[SentenceClaim],
    sources: Sequence[int],
    views: Callable[[int], SourceView | None],
    verbatim: Mapping[int, frozenset[int]],
    judge: Judge,
    passages: Mapping[tuple[str, int], Passage] | None = None,
    uncited: int = 0,
) -> Verification:
    """Judge every claim (see the module docstring); `sources` are all supplied sources'
    indexes, `views` gives a source's view, `verbatim` maps a sentence index to the sources
    that hold it verbatim, `passages` (claim text, source index) to the passage that is the
    claim's evidence there (else the source is searched); `uncited` counts the answer's
    sentences that are not among `sentences` (no valid citation) but have words."""
    if not claims and not sentences:  # (the caller decided every citation itself)
        return Verification({}, CitationQuality(uncited, uncited, 0, 0, 0), judge.name)
    judgements = Judgements(judge, views, passages)
    # A judge that reads the texts (a model) decides across languages itself; the lexical
    # judge cannot match words of two languages.
    lexical = not judge.reads_text
    outcomes: dict[int, Outcome] = {}
    judged: list[tuple[CitedClaim, Key]] = []
    given = passages or {}
    for claim in claims:
        text, source = claim.text, claim.source_index
        if source in verbatim.get(claim.sentence_index, ()):
            outcomes[claim.position] = Outcome(
                "supported", 1.0, None, [], (), None, VERBATIM_JUDGE
            )
        elif (text, source) not in given and views(source) is None:
            outcomes[claim.position] = Outcome(
                "unverifiable", 0.0, None, [], (), None, judge.name, "no_source_text"
            )
        elif not judgements.checkable(text, source):
            outcomes[claim.position] = Outcome(
                "unverifiable", 0.0, None, [], (), None, judge.name, "nothing_to_check"
            )
        elif lexical and _across(text, views(source)):
            view = views(source)
            assert view is not None  # (`_across` is False without a view)
            decided, lacking = decided_across(text, view.texts)
            outcomes[claim.position] = Outcome(
                decided, 0.0, None, lacking, (), None, judge.name, CROSS_LANGUAGE
            )
        else:
            judged.append((claim, (text, (source,))))
    judgements.prefetch([key for _, key in judged])
    verdict, assessment = judgements.verdict, judgements.assessment
    better = _better_sources(
        [
            claim
            for claim, key in judged
            if searches_better(verdict(key), assessment(key).score)
        ],
        sources,
        judgements,
    )
    score, name = judgements.score, judge.name
    for claim, key in judged:
        found = assessment(key)
        missing = found.missing
        outcomes[claim.position] = Outcome(
            verdict(key),
            rounded_score(score(key)),
            found.evidence[0],
            surface_words(claim.text, missing) if missing else [],
            found.conflicts,
            better.get(claim.position) if better else None,
            name,
        )
    # A sentence that no cited source can be read against (other languages) is left out of
    # ALCE's recall and precision rather than counted as unsupported.
    readable = [
        sentence for sentence in sentences
        if not (lexical and all(_across(sentence.text, views(index)) for index in sentence.cited))
    ]
    quality = citation_quality(readable, judgements, verbatim, uncited)
    return Verification(outcomes, quality, judge.name)


def _across(text: str, view: SourceView | None) -> bool:
    """Whether claim `text` and the source of `view` are in languages that cannot be
    matched word for word (services.verification.crosslang)."""
    return view is not None and crosses(language_of(text), view.language)


def searches_better(verdict: str, score: float) -> bool:
    """Whether a citation with this verdict and lexical score looks for a better source."""
    return verdict != "supported" and score < SEARCH_BELOW


def clearly_better(own: float, score: float, verdict: str) -> bool:
    """Whether another source judged `score` (verdict `verdict`) is the better source of a
    claim the cited source scores `own` on."""
    return score >= own + BETTER_MARGIN and verdict != "unsupported"


def _key(claim: CitedClaim) -> Key:
    return claim.text, (claim.source_index,)


def _better_sources(
    claims: Sequence[CitedClaim], sources: Sequence[int], judgements: Judgements
) -> dict[int, int]:
    """Position -> the better source of each claim that has one (see the module docstring)."""
    candidates: dict[int, Key] = {}
    for claim in claims:
        own = judgements.assessment(_key(claim)).score
        items = judgements.claim(claim.text).items
        # A source's lexical score is at most the share of the claim's items it holds
        # (`bound`; single digits, items but no terms, counted as held): the `CANDIDATES`
        # with the highest bounds are assessed, from the highest down, until no bound left
        # can reach the best score found.
        digits = sum(len(item) == 1 and item.isdigit() for item in items)
        bounds: list[tuple[float, int]] = []
        for index in sources:
            view = judgements.view(index)
            if index not in claim.sentence_sources and view is not None:
                bound = (len(items & view.vocabulary) + digits) / len(items)
                if bound >= own + BETTER_MARGIN:
                    bounds.append((-bound, index))
        best: Key | None = None
        top = -1.0
        for bound, index in sorted(bounds)[:CANDIDATES]:
            if -bound < top:
                break
            key = (claim.text, (index,))
            score = judgements.assessment(key).score
            if score > top or (score == top and best is not None and index < best[1][0]):
                best, top = key, score
        if best is not None and top >= own + BETTER_MARGIN:
            candidates[claim.position] = best
    judgements.prefetch(candidates.values())
    found: dict[int, int] = {}
    for claim in claims:
        best = candidates.get(claim.position)
        if best is not None and clearly_better(
            judgements.score(_key(claim)), judgements.score(best), judgements.verdict(best)
        ):
            found[claim.position] = best[1][0]
    return found
