"""ROC AUC and balanced accuracy against hand-computed values."""

from __future__ import annotations

import pytest

from services.eval.metrics import auc, balanced_accuracy, best_balanced_accuracy


def test_auc() -> None:
    assert auc([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 1.0
    assert auc([0.1, 0.2, 0.9, 0.8], [True, True, False, False]) == 0.0
    # positives 0.9, 0.5; negatives 0.5, 0.1: pairs 1, 1, 0.5 (tie), 1 -> 3.5 / 4
    assert auc([0.9, 0.5, 0.5, 0.1], [True, True, False, False]) == pytest.approx(0.875)
    assert auc([1.0, 1.0, 1.0], [True, False, True]) == 0.5
    assert auc([0.3, 0.4], [True, True]) == 0.5


def test_balanced_accuracy() -> None:
    labels = [True, True, True, False]
    assert balanced_accuracy([True, True, False, False], labels) == pytest.approx((2 / 3 + 1) / 2)
    assert balanced_accuracy([True] * 4, labels) == 0.5
    assert best_balanced_accuracy([0.9, 0.8, 0.7, 0.1], labels) == 1.0
