"""Binary classification figures: ROC AUC and balanced accuracy."""

from __future__ import annotations

from collections.abc import Sequence


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Area under the ROC curve: the chance that a positive scores above a negative (ties
    count half); 0.5 when either class is empty."""
    ranked = sorted(zip(scores, labels, strict=True))
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return 0.5
    # Mann-Whitney U with mid-ranks for ties.
    rank_sum = 0.0
    position = 0
    while position < len(ranked):
        end = position
        while end < len(ranked) and ranked[end][0] == ranked[position][0]:
            end += 1
        mid_rank = (position + 1 + end) / 2
        rank_sum += mid_rank * sum(label for _, label in ranked[position:end])
        position = end
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def balanced_accuracy(predictions: Sequence[bool], labels: Sequence[bool]) -> float:
    """Mean of the true-positive and true-negative rates (0.5 for a constant guess)."""
    positives = [p for p, y in zip(predictions, labels, strict=True) if y]
    negatives = [p for p, y in zip(predictions, labels, strict=True) if not y]
    if not positives or not negatives:
        return 0.5
    return (sum(positives) / len(positives) + (len(negatives) - sum(negatives)) / len(negatives)) / 2


def best_balanced_accuracy(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """The balanced accuracy of `score >= t` at the best threshold t (an oracle: t is chosen
    on the same data)."""
    return max(
        (balanced_accuracy([s >= t for s in scores], labels) for t in set(scores)),
        default=0.5,
    )
