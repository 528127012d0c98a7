"""Judgements of one answer, each made once: a claim text against a set of sources.

`assessment` checks a (claim, sources) pair lexically; `prefetch` hands every new pair to the
judge in one batch (a model judge runs them together); `score` and `verdict` read the results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import cast

from services.verification.claims import Claim, read_claim
from services.verification.judges import LEXICAL, Check, Judge, verdict_of
from services.verification.sources import SourceView
from services.verification.support import (
    Assessment,
    Passage,
    assess,
    counted,
    read_passage,
)

# A claim text and the indexes of the sources it is judged against, together.
Key = tuple[str, tuple[int, ...]]


class Judgements:
    """The judgements of one answer (see the module docstring)."""

    __slots__ = (
        "_assessments", "_claims", "_passages", "_scores", "_verdicts", "_views", "judge"
    )

    def __init__(
        self,
        judge: Judge,
        views: Callable[[int], SourceView | None],
        passages: Mapping[tuple[str, int], Passage] | None = None,
    ) -> None:
        """`passages`: (claim text, source index) -> the passage that is the claim's
        evidence in that source (else the check searches the source)."""
        self.judge = judge
        self._views = views
        self._passages = passages or {}
        self._claims: dict[str, Claim] = {}
        self._assessments: dict[Key, Assessment] = {}
        self._scores: dict[Key, float] = {}
        self._verdicts: dict[Key, str] = {}

    def claim(self, text: str) -> Claim:
        """The claim read from `text` (once)."""
        found = self._claims.get(text)
        if found is None:
            found = self._claims[text] = read_claim(text)
        return found

    def has_passage(self, text: str, index: int) -> bool:
        """Whether a passage is given for claim `text` in source `index` (it has text)."""
        return (text, index) in self._passages

    def checkable(self, text: str, index: int) -> bool:
        """Whether claim `text` has anything to check in source `index` (words or numbers;
        told by its counted passage there when it has one, else by reading it)."""
        passage = self._passages.get((text, index)) if self._passages else None
        if passage is not None and passage.terms is not None:
            return passage.terms > 0
        return bool(self.claim(text).items)

    def view(self, index: int) -> SourceView | None:
        """The view of source `index`, None when it has no text."""
        return self._views(index)

    def assessment(self, key: Key) -> Assessment:
        """The lexical assessment of a key (made on first use; no judge involved)."""
        found = self._assessments.get(key)
        if found is None:
            text, indexes = key
            given = self._passages
            if given:
                passages = [given.get((text, index)) for index in indexes]
                if all(passage is not None for passage in passages):
                    found = counted(text, cast("list[Passage]", passages))
                    if found is not None:
                        self._assessments[key] = found
                        return found
            views: list[SourceView] = []
            read: list[Passage | None] = []
            for index in indexes:
                view = self._views(index)
                if view is not None:
                    views.append(view)
                    passage = given.get((text, index)) if given else None
                    if passage is not None and passage.items is None:
                        passage = read_passage(passage.link, passage.text)
                    read.append(passage)
            found = self._assessments[key] = assess(self.claim(text), views, read)
        return found

    def prefetch(self, keys: Iterable[Key]) -> None:
        """Judge every key not judged yet, in one batch."""
        scores = self._scores
        if self.judge is LEXICAL:  # the lexical score as it is: no batch to build
            for key in keys:
                if key not in scores:
                    found = self.assessment(key)
                    scores[key] = found.score if found.evidence else 0.0
            return
        pending: list[Key] = []
        checks: list[Check] = []
        reads = self.judge.reads_text
        for key in dict.fromkeys(keys):
            if key in scores:
                continue
            assessment = self.assessment(key)
            if assessment.evidence:
                pending.append(key)
                checks.append(
                    Check(self.claim(key[0]).text, assessment.evidence_text, assessment.score)
                    if reads
                    else Check("", "", assessment.score)
                )
            else:
                scores[key] = 0.0  # nothing to read: no judge can support it
        if checks:
            for key, score in zip(pending, self.judge.scores(checks), strict=True):
                scores[key] = min(1.0, max(0.0, float(score)))

    def score(self, key: Key) -> float:
        """The judge's score of a prefetched key."""
        return self._scores[key]

    def verdict(self, key: Key) -> str:
        """`supported`, `partial` or `unsupported` for a prefetched key (made once)."""
        found = self._verdicts.get(key)
        if found is None:
            found = self._verdicts[key] = verdict_of(
                self.judge, self._scores[key], bool(self._assessments[key].conflicts)
            )
        return found

    def supports(self, key: Key) -> bool:
        """Whether the sources of a prefetched key support its claim (ALCE's binary call)."""
        return self.verdict(key) == "supported"
