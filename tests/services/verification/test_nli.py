"""The NLI judge's loading and batching, with a tiny ONNX model built here (no download).

The model scores a pair by its token count: logits `[0, 0, n - 8]` (labels contradiction,
neutral, entailment), so the entailment probability grows with the pair's length and is
unaffected by padding. Skipped when onnx, onnxruntime or tokenizers is not installed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
tokenizers = pytest.importorskip("tokenizers")

from onnx import TensorProto, helper

from services.verification.config import JudgeConfigError, judge_from_setting
from services.verification.judges import LEXICAL, Check
from services.verification.nli.judge import NliJudge, NliJudgeError
from services.verification.sources import source_view
from services.verification.verify import CitedClaim, verify

WORDS = ["the", "tower", "was", "built", "in", "1889", "paris", "iron", "it", "is", "tall", "not"]


def _model(path: Path, *, labels: int = 3) -> None:
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"])
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])
    offset = helper.make_tensor("offset", TensorProto.FLOAT, [1], [8.0])
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [1], [0.0])
    nodes = [
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["maskf", "axes"], ["count"], keepdims=1),
        helper.make_node("Sub", ["count", "offset"], ["entail"]),
        helper.make_node("Mul", ["count", "zero"], ["zeros"]),
        # input_ids takes part, as in a real model (and must be fed)
        helper.make_node("Cast", ["input_ids"], ["idsf"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["idsf", "axes"], ["idsum"], keepdims=1),
        helper.make_node("Mul", ["idsum", "zero"], ["nothing"]),
        helper.make_node("Add", ["zeros", "nothing"], ["base"]),
    ]
    if labels == 1:
        nodes.append(helper.make_node("Add", ["entail", "base"], ["logits"]))
    else:
        nodes.append(helper.make_node("Concat", ["base", "base", "entail"], ["logits"], axis=1))
    graph = helper.make_graph(nodes, "tiny", [ids, mask], [out], [offset, axes, zero])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _directory(tmp_path: Path, *, labels: int = 3, settings: dict | None = None) -> Path:
    directory = tmp_path / "tiny-nli"
    directory.mkdir(parents=True)
    _model(directory / "model.onnx", labels=labels)
    vocab = {"[UNK]": 0, "[PAD]": 1, **{w: i + 2 for i, w in enumerate(WORDS)}}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer.save(str(directory / "tokenizer.json"))
    (directory / "config.json").write_text(
        json.dumps({"id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}})
    )
    if settings is not None:
        (directory / "citeflow_judge.json").write_text(json.dumps(settings))
    return directory


def _expected(tokens: int) -> float:
    entail = math.exp(tokens - 8)
    return entail / (2 + entail)


def test_scores_are_entailment_probabilities_in_order_across_batches(tmp_path: Path) -> None:
    judge = NliJudge.from_directory(_directory(tmp_path, settings={"batch_size": 2}))
    checks = [
        Check("the tower", "it is tall", 0.0),  # 5 tokens
        Check("paris", "the tower was built in 1889", 0.0),  # 7
        Check("iron", "tall", 0.0),  # 2
        Check("the tower was built in 1889 in paris", "it is iron", 0.0),  # 11
        Check("not", "tall", 0.0),  # 2
    ]
    scores = judge.scores(checks)
    assert scores == pytest.approx([_expected(n) for n in (5, 7, 2, 11, 2)], rel=1e-5)
    # one batch or five: padding changes nothing
    single = NliJudge.from_directory(_directory(tmp_path / "b", settings={"batch_size": 64}))
    assert single.scores(checks) == pytest.approx(scores, rel=1e-6)
    assert judge.name == "nli:tiny-nli"


def test_truncation_bounds_the_pair(tmp_path: Path) -> None:
    judge = NliJudge.from_directory(_directory(tmp_path, settings={"max_length": 4}))
    [score] = judge.scores([Check("the tower was built in 1889", "it is tall", 0.0)])
    assert score == pytest.approx(_expected(4), rel=1e-5)


def test_a_single_logit_model_reads_through_a_sigmoid(tmp_path: Path) -> None:
    directory = _directory(tmp_path, labels=1, settings={"name": "hhem-tiny"})
    judge = NliJudge.from_directory(directory)
    [score] = judge.scores([Check("the tower", "it is tall", 0.0)])
    assert score == pytest.approx(1 / (1 + math.exp(-(5 - 8))), rel=1e-5)
    assert judge.name == "nli:hhem-tiny"


def test_configured_by_setting_and_recorded_on_verdicts(tmp_path: Path) -> None:
    directory = _directory(tmp_path, settings={"supported_from": 0.5, "partial_from": 0.1})
    judge = judge_from_setting(f"nli:{directory}")
    views = {1: source_view(["The tower was built in 1889 in Paris. It is tall."])}
    claims = [CitedClaim(0, 1, 0, "The tower was built in 1889.", (1,))]
    outcome = verify(claims, [], [1], views.get, {}, judge).outcomes[0]
    assert outcome.judge == "nli:tiny-nli"
    assert outcome.verdict == "supported"  # a long pair: entailment ~1 with this model
    assert judge_from_setting("lexical") is LEXICAL
    assert judge_from_setting("") is LEXICAL


def test_bad_settings_and_directories_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(JudgeConfigError, match="expected 'lexical'"):
        judge_from_setting("gpt-4")
    with pytest.raises(NliJudgeError, match="model.onnx is missing"):
        NliJudge.from_directory(tmp_path)
    directory = _directory(tmp_path)
    (directory / "config.json").unlink()
    judge = NliJudge.from_directory(directory)
    with pytest.raises(NliJudgeError, match="entailment_index"):
        judge.scores([Check("the tower", "tall", 0.0)])
