"""Judges: what turns a claim and its evidence into a support score in [0, 1].

Every judge reads the same `Check`s, built by the lexical check (services.verification.support):
the claim, the evidence text, and the lexical score. The built-in `LexicalJudge` returns the
lexical score (lexical support, not entailment); a model judge (services.verification.nli)
scores the evidence's entailment of the claim instead. Each judge names itself (recorded with
every verdict) and sets the scores from which a verdict is `supported` or `partial`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(slots=True)
class Check:
    """One claim against its evidence."""

    claim: str
    evidence: str
    lexical: float


class Judge(Protocol):
    """Scores checks in batches (a model judge runs one batch per call)."""

    @property
    def name(self) -> str:
        """How the verdicts record this judge, e.g. `lexical` or `nli:hhem-2.1-open`."""
        ...

    @property
    def reads_text(self) -> bool:
        """Whether the judge reads the checks' texts (else they are left empty)."""
        ...

    @property
    def supported_from(self) -> float:
        """The score from which a check without conflicts is `supported`."""
        ...

    @property
    def partial_from(self) -> float:
        """The score from which a check is `partial`."""
        ...

    def scores(self, checks: Sequence[Check]) -> list[float]:
        """One score in [0, 1] per check, in order."""
        ...


class LexicalJudge:
    """The built-in judge: the lexical score as it is (deterministic, no model)."""

    name = "lexical"
    reads_text = False
    # Chosen on the corpus's ExpertQA and ALCE answers (`citeflow eval attribution`; the
    # figures are in-sample): a paraphrase that experts call complete often keeps only
    # three fifths of its content words, so `supported` starts there; a low `partial` bound leaves
    # `unsupported` to citations whose source shares almost nothing with the claim, and
    # wrong citations to `better_source` (whose margin these bounds do not move).
    supported_from = 0.6
    partial_from = 0.15

    def scores(self, checks: Sequence[Check]) -> list[float]:
        """The lexical scores."""
        return [check.lexical for check in checks]


LEXICAL = LexicalJudge()


def verdict_of(judge: Judge, score: float, conflicts: bool) -> str:
    """`supported`, `partial` or `unsupported`: a judge's score against its bounds (a check
    with conflicts is never `supported`)."""
    if score >= judge.supported_from and not conflicts:
        return "supported"
    return "partial" if score >= judge.partial_from else "unsupported"
