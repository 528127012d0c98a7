"""A model judge on the WiCE dev claims (`citeflow eval wice --judge openai:<model>`): each
claim against its cited page, beside the lexical verdict the pipeline gives the same claim
(services.judging.comparison). The human label `supported` is the positive class;
`partially_supported` and `not_supported` are not supported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.eval import wice
from services.judging.comparison import LabelledClaim, compare
from services.judging.refine import Refiner


def labelled_claims(corpus: Path) -> tuple[list[LabelledClaim], list[bool]]:
    """Each claim with its page (the sentences the answer's source holds) and its human
    label; and whether the pipeline's lexical verdict on it is `supported`."""
    claims: list[LabelledClaim] = []
    lexical: list[bool] = []
    for number, record in enumerate(wice.read_lines(corpus / wice.CLAIMS_FILE)):
        sentences = record["evidence"]
        claims.append(LabelledClaim(record["claim"], "\n".join(sentences),
                                    record["label"] == "supported"))
        lexical.append(wice.judge_claim(record["claim"], sentences, number).verdict
                       == "supported")
    return claims, lexical


def compare_on_wice(corpus: Path, model: Refiner) -> dict[str, Any]:
    """The model judge's figures on the claims beside the lexical judge's."""
    claims, lexical = labelled_claims(corpus)
    return compare(model, claims, lexical)
