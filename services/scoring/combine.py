"""Combining the parts into one score, and explaining it.

The weights (summing to 1) favour evidence: the retriever's opinion and whether the source
really covers the sentences that cite it count twice as much as word overlap with the query.
A part that cannot be computed for a source (no retriever score, no usable query) is left out
and the remaining weights are scaled back up to sum to 1.
"""

from __future__ import annotations

WEIGHTS: dict[str, float] = {"retriever": 0.4, "lexical": 0.2, "support": 0.4}
SCORE_DIGITS = 6


def combine(parts: dict[str, float]) -> tuple[float, dict[str, float]]:
    """The combined score in [0, 1] and the weights used, for the parts available."""
    total = 0.0
    for name in parts:
        total += WEIGHTS[name]
    weights = {}
    score = 0.0
    for name, value in parts.items():
        weight = weights[name] = WEIGHTS[name] / total
        score += weight * value
    return round(min(1.0, max(0.0, score)), SCORE_DIGITS), weights


class Combiner:
    """`combine` and its explanation for many sources: the weights, and their share of
    each explanation, depend only on which parts a source has, so they are worked out once
    per set of parts."""

    __slots__ = ("_plans",)

    def __init__(self) -> None:
        self._plans: dict[
            tuple[str, ...], tuple[dict[str, float], list[tuple[str, float, str]]]
        ] = {}

    def combine(self, parts: dict[str, float]) -> tuple[float, dict[str, float]]:
        """As `combine` (the weights dict is shared between sources with the same parts)."""
        names = tuple(parts)
        plan = self._plans.get(names)
        if plan is None:
            weights = combine(parts)[1]
            plan = self._plans[names] = (
                weights,
                [
                    (name, weights[name], f"{weights[name]:.2f}×{name} ")
                    for name in names
                ],
            )
        score = 0.0
        for name, weight, _ in plan[1]:
            score += weight * parts[name]
        return round(min(1.0, max(0.0, score)), SCORE_DIGITS), plan[0]

    def explain(
        self,
        index: int,
        score: float,
        parts: dict[str, float],
        *,
        rank: int,
        of: int,
        citation_count: int,
        eligible: bool,
        threshold: float,
    ) -> str:
        """One sentence: the rank, the sum that made the score, citations and eligibility
        (for parts already combined by this combiner)."""
        plan = self._plans[tuple(parts)]
        terms = " + ".join([f"{label}{parts[name]:.2f}" for name, _, label in plan[1]])
        cited = (
            "not cited"
            if citation_count == 0
            else "cited once"
            if citation_count == 1
            else f"cited {citation_count} times"
        )
        verdict = "eligible" if eligible else "not eligible"
        return (
            f"Source {index} ranks {rank} of {of} with {score:.3f} = {terms}; {cited}; "
            f"{verdict} (min_citation_score {threshold:g})."
        )
