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


def test_eval_attribution_measures_a_model_judge_beside_the_lexical_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.services.judging.fake_servers import FakeJudgeServer

    answers = corpus_path("answers")
    with FakeJudgeServer("openai") as server:
        monkeypatch.setenv("CITEFLOW_JUDGING_BASE_URL", server.base_url)
        monkeypatch.setenv("CITEFLOW_JUDGING_PRICES", "1,2")
        result = CliRunner().invoke(main, ["eval", "attribution", "--answers", str(answers),
                                           "--judge", "openai:judge-model"])
        posts = len(server.posts())
    assert result.exit_code == 0, result.output
    figures = orjson.loads(result.stdout.strip().splitlines()[-1])
    assert figures["judge"] == "lexical"  # the inline run is the lexical judge's
    model = figures["model_judge"]
    assert model["judge"] == "openai:judge-model" and model["claims"] == 130
    assert sum(model["statuses"].values()) == 130 and model["requests"] == posts > 0
    # The same claims: the lexical column is task (b)'s lexical figure.
    assert model["lexical_balanced_accuracy"] == \
        figures["support_grading"]["judge_balanced_accuracy"]
    assert model["usd"] == pytest.approx((model["input_tokens"] + 2 * model["output_tokens"])
                                         / 1e6)


def test_an_unknown_model_judge_is_a_usage_error() -> None:
    from tests.services.judging.fake_servers import FakeJudgeServer

    with FakeJudgeServer("openai") as server:
        result = CliRunner(env={"CITEFLOW_JUDGING_BASE_URL": server.base_url}).invoke(
            main, ["eval", "attribution", "--judge", "openai:nope"])
    assert result.exit_code == 2 and "'nope' does not exist" in result.output


def test_eval_wice_measures_a_model_judge_beside_the_lexical_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.services.judging.fake_servers import FakeJudgeServer

    claims = corpus_path("claims")
    with FakeJudgeServer("openai") as server:
        monkeypatch.setenv("CITEFLOW_JUDGING_BASE_URL", server.base_url)
        monkeypatch.setenv("CITEFLOW_JUDGING_PRICES", "1,2")
        result = CliRunner().invoke(main, ["eval", "wice", "--claims", str(claims),
                                           "--judge", "openai:judge-model"])
        posts = len(server.posts())
    assert result.exit_code == 0, result.output
    figures = orjson.loads(result.stdout.strip().splitlines()[-1])
    model = figures["model_judge"]
    assert model["judge"] == "openai:judge-model" and model["claims"] == figures["claims"]
    assert sum(model["statuses"].values()) == figures["claims"]
    assert model["requests"] == posts > 0
    assert model["usd"] == pytest.approx((model["input_tokens"] + 2 * model["output_tokens"])
                                         / 1e6)
    # The same claims: the lexical column is the balanced accuracy of the verdicts the
    # eval's own table counts (`supported` against every other human label).
    verdicts = figures["verdicts"]
    positives = sum(verdicts["supported"].values())
    negatives = sum(sum(verdicts[label].values()) for label in verdicts if label != "supported")
    said_not = sum(verdicts[label]["supported"] for label in verdicts if label != "supported")
    expected = (verdicts["supported"]["supported"] / positives + 1 - said_not / negatives) / 2
    assert model["lexical_balanced_accuracy"] == pytest.approx(expected)


def test_eval_wice_takes_only_a_model_judge() -> None:
    result = CliRunner().invoke(main, ["eval", "wice", "--judge", "lexical"])
    assert result.exit_code == 2 and "'openai:<model>'" in result.output
