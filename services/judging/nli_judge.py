"""The local ONNX NLI judge (services.verification.nli) behind the judging interface: its
entailment probability against its own bounds is the verdict; it quotes nothing (its
evidence is the whole passage it read)."""

from __future__ import annotations

from collections.abc import Sequence

from services.judging.judge import Item, Opinion, Usage, Verdicts
from services.verification.judges import Check, Judge, verdict_of


class NliModelJudge:
    """A support judge that scores text pairs (e.g. `NliJudge`) as a model judge."""

    quotes_evidence = False

    def __init__(self, scorer: Judge) -> None:
        self._scorer = scorer

    @property
    def name(self) -> str:
        """The scorer's name, e.g. `nli:hhem-2.1-open`."""
        return self._scorer.name

    def check(self) -> None:
        """Loading the model directory was the check."""

    def judge(self, items: Sequence[Item]) -> Verdicts:
        """One model run per batch of the scorer's own size."""
        scores = self._scorer.scores([Check(i.claim, i.evidence, 0.0) for i in items])
        opinions = {
            item.key: Opinion(verdict_of(self._scorer, score, conflicts=False),  # type: ignore[arg-type]
                              f"Entailment probability {score:.2f}.")
            for item, score in zip(items, scores, strict=True)
        }
        return Verdicts(dict(opinions), Usage(requests=1))
