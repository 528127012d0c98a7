"""`citeflow eval attribution` and `citeflow bench verification` run and print their JSON."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from services.cli import main
from tests.conftest import corpus_path

pytestmark = pytest.mark.corpus


def test_eval_attribution_prints_both_tasks() -> None:
    answers = corpus_path("answers")
    result = CliRunner().invoke(main, ["eval", "attribution", "--answers", str(answers),
                                       "--judge", "lexical"])
    assert result.exit_code == 0, result.output
    figures = orjson.loads(result.stdout.strip().splitlines()[-1])
    assert figures["judge"] == "lexical"
    assert figures["wrong_citation"]["pairs"] == 790
    assert figures["support_grading"]["claims"] == 130


def test_bench_verification_prints_its_figures() -> None:
    answers = corpus_path("answers")
    result = CliRunner().invoke(main, ["bench", "verification", "--answers", str(answers),
                                       "--runs", "1"])
    assert result.exit_code == 0, result.output
    figures = orjson.loads(result.stdout.strip().splitlines()[-1])
    assert figures["expertqa"]["answers"] == 28 and figures["section7"]["answers"] == 1
    assert figures["expertqa"]["verification_cpu_ms"] > 0
    assert 0 < figures["expertqa"]["rivals_cpu_ms"] < figures["expertqa"]["verification_cpu_ms"]
