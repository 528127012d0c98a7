"""Combining the parts into one score, and explaining it.

The weights (summing to 1) favour evidence: the retriever's opinion and whether the source
really covers the sentences that cite it count twice as much as word overlap with the query.
A part that cannot be computed for a source (no retriever score, no usable query) is left out
and the remaining weights are scaled back up to sum to 1.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def cited_phrase(count: int) -> str:
    """How often a source is cited, in words."""
    if count == 0:
        return "not cited"
    return "cited once" if count == 1 else f"cited {count} times"


@dataclass(frozen=True, slots=True)
class Plan:
    """How sources with one set of parts are combined and explained: the part names, their
    weights (as `combine` gives them, in the same order) and the explanation's %-template,
    which takes (index, rank, of, score, *part values, cited phrase, verdict)."""

    names: tuple[str, ...]
    weights: dict[str, float]
    factors: tuple[float, ...]
    template: str

    def score(self, values: tuple[float, ...]) -> float:
        """The combined score of the parts' `values` (in `names` order), as `combine`."""
        score = 0.0
        for weight, value in zip(self.factors, values):
            score += weight * value
        return round(min(1.0, max(0.0, score)), SCORE_DIGITS)


# Plans by their parts and threshold (its exact bits: -0.0 is written apart from 0.0): a
# process meets a handful, so each is made once, not once per answer (bounded all the same).
_PLANS: dict[tuple[tuple[str, ...], str], Plan] = {}
_MAX_PLANS = 64


def plan(names: tuple[str, ...], threshold: float) -> Plan:
    """The plan for sources with the parts `names`, explained against `threshold`.

    The explanation reads "Source I ranks R of N with S = 0.40×retriever 0.75 + ...; cited
    2 times; eligible (min_citation_score T)."; building it from one template keeps the float
    formatting (the bulk of its cost) to a single %-operation per source."""
    key = (names, threshold.hex())
    found = _PLANS.get(key)
    if found is not None:
        return found
    weights = combine(dict.fromkeys(names, 0.0))[1]
    terms = " + ".join([f"{weights[name]:.2f}×{name} %.2f" for name in names])
    tail = f"(min_citation_score {threshold:g})".replace("%", "%%")
    found = Plan(
        names,
        weights,
        tuple(weights.values()),
        f"Source %d ranks %d of %d with %.3f = {terms}; %s; %s {tail}.",
    )
    if len(_PLANS) >= _MAX_PLANS:
        _PLANS.clear()
    _PLANS[key] = found
    return found
