"""The local ONNX NLI judge behind the judging interface (the tiny model of the NLI tests)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from services.judging.judge import JudgeConfigError
from services.judging.settings import refiner_from_env
from tests.services.judging.answers import tower_answer
from tests.services.verification.test_nli import _directory


def test_the_nli_judge_refines_with_its_own_bounds(tmp_path: Path) -> None:
    directory = _directory(tmp_path, settings={"name": "tiny", "supported_from": 0.5,
                                                "partial_from": 0.2})
    refiner = refiner_from_env({"CITEFLOW_JUDGING": f"nli:{directory}",
                                "CITEFLOW_JUDGING_SCOPE": "all"})
    answer = tower_answer()
    judged = asyncio.run(refiner.refine(answer))
    assert judged.judge == "nli:tiny"
    assert [j.status for j in judged.judgements] == ["judged"] * 3
    assert all(j.evidence == [] and j.judge == "nli:tiny" for j in judged.judgements)
    # Each verdict is the model's entailment probability against the directory's bounds.
    for judgement in judged.judgements:
        assert judgement.rationale is not None
        probability = float(judgement.rationale.removeprefix("Entailment probability ")[:-1])
        expected = ("supported" if probability >= 0.5 else
                    "partial" if probability >= 0.2 else "unsupported")
        assert judgement.verdict == expected


def test_a_missing_model_directory_is_an_error_at_start_up(tmp_path: Path) -> None:
    with pytest.raises(JudgeConfigError, match="missing"):
        refiner_from_env({"CITEFLOW_JUDGING": f"nli:{tmp_path / 'none'}"})
