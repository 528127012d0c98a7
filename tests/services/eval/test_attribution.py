"""`citeflow eval attribution` on the corpus answers (skipped where the corpus is absent)."""

from __future__ import annotations

import pytest

from services.eval.attribution import evaluate, load_questions, swap_pairs
from services.verification.judges import LEXICAL
from tests.conftest import corpus_path

pytestmark = pytest.mark.corpus


def test_swaps_point_citations_at_other_passages_of_the_question() -> None:
    questions = load_questions(corpus_path("answers"))
    pairs = swap_pairs(questions)
    assert len(questions) == 40  # 28 ExpertQA answers, 12 ALCE demos
    for pair in pairs:
        question = questions[pair.question]
        # a claim text may occur twice (QAMPARI lists): one of them made the pair
        candidates = [c for t, c, _ in question.claims if t == pair.claim]
        if pair.right:
            assert any(pair.source in cited for cited in candidates)
        else:
            assert any(
                pair.source not in cited
                and question.passages[pair.source] not in {question.passages[n] for n in cited}
                for cited in candidates
            )


def test_figures_beside_their_baselines() -> None:
    figures = evaluate(corpus_path("answers"), LEXICAL)
    wrong, graded = figures["wrong_citation"], figures["support_grading"]
    assert wrong["right"] > 0 and wrong["wrong"] > 0 and graded["claims"] > 0
    assert wrong["presence_auc"] == 0.5 and wrong["presence_balanced_accuracy"] == 0.5
    # The target on the constructed swaps, deterministic with the lexical judge
    # (its thresholds were chosen on these data: in-sample).
    assert wrong["judge_balanced_accuracy"] >= 0.85
    assert wrong["judge_auc_margin"] > wrong["recall_auc"]
    for task in (wrong, graded):
        for name, value in task.items():
            if "auc" in name or "accuracy" in name:
                assert 0.0 <= value <= 1.0, name
