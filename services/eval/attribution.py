"""`citeflow eval attribution`: the support judge on the corpus's cited answers.

Data (`corpus/answers`): ExpertQA's 28 GPT-4 answers, whose claims carry expert `support`
labels and the passages they cite (`evidence_numbers`), and ALCE's 12 demos, whose claims are
the texts their citation clusters close. Three tasks:

(a) Wrong-citation detection. Every citation of a claim is a right citation; pointing it at a
    passage of the same question that the claim does not cite (and whose text differs from
    the cited ones) makes a wrong one. A citation is flagged wrong when its verdict is
    `unsupported` or it has a `better_source` (the shipped `verify`, with all the question's
    passages supplied).
(b) Support grading: ExpertQA claims labelled Complete against Partial/Incomplete, judged
    against all their cited passages together; predicted Complete when `supported`.
(c) Calibration: the verdicts on single-citation claims by expert label (how many
    human-Complete claims the judge calls `supported`, and `unsupported`).

Baselines in the same run: a citation's mere presence (every citation right, every claim
complete) and plain content-word recall (share of the claim's content terms in the cited
text; balanced accuracy at its best threshold, chosen on the same data: an oracle).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.eval.metrics import auc, balanced_accuracy, best_balanced_accuracy
from services.text.lexical import clear_memo, text_terms
from services.verification.judges import Judge
from services.verification.memo import Judgements
from services.verification.sources import SourceView, source_view
from services.verification.sources import clear_memo as clear_views
from services.verification.verify import CitedClaim, verify

_MARKERS = re.compile(r"\s*\[(\d+)\]")
_CLUSTER = re.compile(r"([^\[\]]*?)((?:\s*\[\d+\])+)")
_GRADED = {"Complete": True, "Partial": False, "Incomplete": False}


@dataclass(frozen=True, slots=True)
class Question:
    """One answer's passages (by number) and its claims."""

    passages: dict[int, str]
    claims: list[tuple[str, tuple[int, ...], str | None]]  # text, cited, support label


@dataclass(frozen=True, slots=True)
class Pair:
    """A claim with one citation, right or wrong (see the module docstring)."""

    question: int
    claim: str
    source: int
    sentence_sources: tuple[int, ...]
    right: bool


def _clean(text: str) -> str:
    return _MARKERS.sub("", text).strip()


def load_questions(answers_dir: Path) -> list[Question]:
    """The ExpertQA answers and the ALCE demos."""
    questions: list[Question] = []
    expertqa = json.loads((answers_dir / "expertqa_cited_answers.json").read_text("utf-8"))
    for record in expertqa["records"]:
        passages = {doc["n"]: doc["text"] for doc in record["docs"]}
        claims = [
            (_clean(c["claim"]), tuple(c["evidence_numbers"]), c["support"])
            for c in record["claims"]
        ]
        questions.append(Question(passages, claims))
    alce = json.loads((answers_dir / "alce_demos.json").read_text("utf-8"))
    for record in alce["records"]:
        passages = {n: doc["text"] for n, doc in enumerate(record["docs"], 1)}
        claims = []
        for match in _CLUSTER.finditer(record["answer"]):
            text = match.group(1).strip(" ,.;")
            cited = tuple(dict.fromkeys(int(n) for n in re.findall(r"\d+", match.group(2))))
            if text and all(n in passages for n in cited):
                claims.append((text, cited, None))
        questions.append(Question(passages, claims))
    return questions


def swap_pairs(questions: list[Question]) -> list[Pair]:
    """Right citations and the wrong ones made from them (see the module docstring)."""
    pairs: list[Pair] = []
    for number, question in enumerate(questions):
        for text, cited, _ in question.claims:
            if not cited or not text:
                continue
            cited_texts = {question.passages[n] for n in cited}
            for source in cited:
                pairs.append(Pair(number, text, source, cited, True))
            for other, passage in question.passages.items():
                if other not in cited and passage not in cited_texts:
                    replaced = (other, *cited[1:])
                    pairs.append(Pair(number, text, other, replaced, False))
    return pairs


def _recall(claim: str, passage: str) -> float:
    """Plain content-word recall: the share of the claim's content terms in the passage."""
    terms = text_terms(claim)
    return len(terms & text_terms(passage)) / len(terms) if terms else 0.0


def wrong_citations(questions: list[Question], pairs: list[Pair], judge: Judge) -> dict[str, Any]:
    """Task (a): the judge's flags and scores beside the baselines, and its pace."""
    clear_memo(vocabulary=False)
    clear_views()
    flags: list[bool] = []
    started = time.perf_counter()
    for number, question in enumerate(questions):
        mine = [pair for pair in pairs if pair.question == number]
        if not mine:
            continue
        views = _views(question)
        claims = [
            CitedClaim(k, p.source, k, p.claim, p.sentence_sources) for k, p in enumerate(mine)
        ]
        outcomes = verify(claims, [], list(question.passages), views.get, {}, judge).outcomes
        flags += [
            outcomes[k].verdict == "unsupported" or outcomes[k].better_source is not None
            for k in range(len(mine))
        ]
    seconds = time.perf_counter() - started
    labels = [pair.right for pair in pairs]
    own, margin = _scores(questions, pairs, judge)
    recall = [_recall(p.claim, questions[p.question].passages[p.source]) for p in pairs]
    return {
        "pairs": len(pairs),
        "right": sum(labels),
        "wrong": len(labels) - sum(labels),
        "judge_balanced_accuracy": balanced_accuracy([not f for f in flags], labels),
        "judge_auc_score": auc(own, labels),
        "judge_auc_margin": auc(margin, labels),
        "judge_best_balanced_accuracy_margin": best_balanced_accuracy(margin, labels),
        "presence_auc": auc([1.0] * len(labels), labels),
        "presence_balanced_accuracy": balanced_accuracy([True] * len(labels), labels),
        "recall_auc": auc(recall, labels),
        "recall_best_balanced_accuracy": best_balanced_accuracy(recall, labels),
        "pairs_per_second": len(pairs) / seconds if seconds else 0.0,
    }


def _views(question: Question) -> dict[int, SourceView | None]:
    return {n: source_view([text]) for n, text in question.passages.items()}


def _scores(
    questions: list[Question], pairs: list[Pair], judge: Judge
) -> tuple[list[float], list[float]]:
    """Each pair's judged score, and that score minus the best other passage's (not cited
    in the same sentence)."""
    own: list[float] = []
    margin: list[float] = []
    memos: dict[int, Judgements] = {}
    for pair in pairs:
        question = questions[pair.question]
        memo = memos.get(pair.question)
        if memo is None:
            memo = memos[pair.question] = Judgements(judge, _views(question).get)
        others = [n for n in question.passages if n not in pair.sentence_sources]
        keys = [(pair.claim, (n,)) for n in (pair.source, *others)]
        memo.prefetch(keys)
        score = memo.score(keys[0])
        own.append(score)
        margin.append(score - max((memo.score(k) for k in keys[1:]), default=0.0))
    return own, margin


def support_grading(questions: list[Question], judge: Judge) -> dict[str, Any]:
    """Task (b): Complete against Partial/Incomplete on ExpertQA's expert labels."""
    labels: list[bool] = []
    predicted: list[bool] = []
    scores: list[float] = []
    recall: list[float] = []
    for question in questions:
        memo = Judgements(judge, _views(question).get)
        graded = [(t, c, _GRADED[s]) for t, c, s in question.claims if c and s in _GRADED]
        memo.prefetch((text, cited) for text, cited, _ in graded)
        for text, cited, complete in graded:
            labels.append(complete)
            scores.append(memo.score((text, cited)))
            predicted.append(memo.verdict((text, cited)) == "supported")
            recall.append(_recall(text, " ".join(question.passages[n] for n in cited)))
    return {
        "claims": len(labels),
        "complete": sum(labels),
        "judge_balanced_accuracy": balanced_accuracy(predicted, labels),
        "judge_auc": auc(scores, labels),
        "presence_auc": auc([1.0] * len(labels), labels),
        "presence_balanced_accuracy": balanced_accuracy([True] * len(labels), labels),
        "recall_auc": auc(recall, labels),
        "recall_best_balanced_accuracy": best_balanced_accuracy(recall, labels),
    }


def graded_claims(answers_dir: Path, judge: Judge) -> list[tuple[str, str, bool, bool]]:
    """Task (b)'s claims as (claim, the cited passages, human Complete, `judge` says
    `supported`): what another judge is measured on beside this one."""
    found = []
    for question in load_questions(answers_dir):
        memo = Judgements(judge, _views(question).get)
        graded = [(t, c, _GRADED[s]) for t, c, s in question.claims if c and s in _GRADED]
        memo.prefetch((text, cited) for text, cited, _ in graded)
        for text, cited, complete in graded:
            found.append((text, " ".join(question.passages[n] for n in cited), complete,
                          memo.verdict((text, cited)) == "supported"))
    return found


def calibration(questions: list[Question], judge: Judge) -> dict[str, dict[str, int]]:
    """(c) The verdicts on ExpertQA's single-citation claims by their expert label
    (`complete`, `partial_or_incomplete`), each claim judged against its one cited passage
    with the question's other passages supplied: how often the judge's `supported` and
    `unsupported` agree with the experts."""
    found: dict[str, dict[str, int]] = {"complete": {}, "partial_or_incomplete": {}}
    for question in questions:
        graded = [
            (text, cited[0], _GRADED[label])
            for text, cited, label in question.claims
            if len(cited) == 1 and label in _GRADED
        ]
        if not graded:
            continue
        claims = [CitedClaim(k, source, k, text, (source,)) for k, (text, source, _) in enumerate(graded)]
        outcomes = verify(claims, [], list(question.passages), _views(question).get, {}, judge).outcomes
        for k, (_, _, complete) in enumerate(graded):
            counts = found["complete" if complete else "partial_or_incomplete"]
            verdict = outcomes[k].verdict
            counts[verdict] = counts.get(verdict, 0) + 1
    return found


def evaluate(answers_dir: Path, judge: Judge) -> dict[str, Any]:
    """The three tasks on the corpus answers in `answers_dir`."""
    questions = load_questions(answers_dir)
    return {
        "judge": judge.name,
        "wrong_citation": wrong_citations(questions, swap_pairs(questions), judge),
        "support_grading": support_grading(questions, judge),
        "calibration": calibration(questions, judge),
    }
