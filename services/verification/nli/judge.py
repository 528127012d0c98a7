"""An NLI / fact-checking model as a judge, from a local directory; never downloads.

The directory holds `model.onnx` (an ONNX export of e.g. HHEM-2.1-open or MiniCheck, or any
sequence-pair classifier), `tokenizer.json` (a Hugging Face `tokenizers` file) and optionally
`citeflow_judge.json`, which may set `name`, `max_length` (512), `batch_size` (16),
`entailment_index`, `supported_from` (0.5) and `partial_from` (0.2). Without an
`entailment_index` the label is read from a Hugging Face `config.json` (`id2label`, the label
containing "entail"); a model with a single output per pair (HHEM, MiniCheck exports) gives a
logit read through a sigmoid. The evidence is the premise, the claim the hypothesis; the
score is the probability of entailment.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.verification.judges import Check

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
SETTINGS_FILE = "citeflow_judge.json"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class NliJudgeError(RuntimeError):
    """The model directory cannot be used (missing files, no onnxruntime, bad output)."""


@dataclass(frozen=True, slots=True)
class NliSettings:
    """How to run one model directory."""

    name: str
    max_length: int = 512
    batch_size: int = 16
    entailment_index: int | None = None
    supported_from: float = 0.5
    partial_from: float = 0.2


def read_settings(directory: Path) -> NliSettings:
    """The settings of a model directory (see the module docstring)."""
    settings = directory / SETTINGS_FILE
    values: dict[str, Any] = (
        json.loads(settings.read_text("utf-8")) if settings.exists() else {}
    )
    values["name"] = f"nli:{values.get('name') or directory.name}"
    config = directory / "config.json"
    if values.get("entailment_index") is None and config.exists():
        labels = json.loads(config.read_text("utf-8")).get("id2label") or {}
        for index, label in labels.items():
            if "entail" in str(label).lower() and "not" not in str(label).lower():
                values["entailment_index"] = int(index)
    return NliSettings(**values)


class NliJudge:
    """Scores checks with the model: the probability that the evidence entails the claim."""

    def __init__(self, session: Any, tokenizer: Any, settings: NliSettings) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._settings = settings
        self._inputs = [i.name for i in session.get_inputs() if i.name in _INPUTS]
        if "input_ids" not in self._inputs:
            raise NliJudgeError("the model has no `input_ids` input")
        tokenizer.enable_truncation(settings.max_length, strategy="longest_first")
        tokenizer.enable_padding()

    @classmethod
    def from_directory(cls, path: str | Path) -> NliJudge:
        """Load the model directory at `path` (local files only)."""
        directory = Path(path)
        for name in (MODEL_FILE, TOKENIZER_FILE):
            if not (directory / name).is_file():
                raise NliJudgeError(f"{directory / name} is missing (nothing is downloaded)")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:  # the optional extra is not installed
            raise NliJudgeError(
                "the NLI judge needs the `citeflow[nli]` extra (onnxruntime, tokenizers)"
            ) from exc
        session = onnxruntime.InferenceSession(
            str(directory / MODEL_FILE), providers=["CPUExecutionProvider"]
        )
        tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
        return cls(session, tokenizer, read_settings(directory))

    @property
    def name(self) -> str:
        """`nli:<model name>`."""
        return self._settings.name

    @property
    def reads_text(self) -> bool:
        """The model reads the claim and the evidence."""
        return True

    @property
    def supported_from(self) -> float:
        """The entailment probability from which a check is `supported`."""
        return self._settings.supported_from

    @property
    def partial_from(self) -> float:
        """The entailment probability from which a check is `partial`."""
        return self._settings.partial_from

    def scores(self, checks: Sequence[Check]) -> list[float]:
        """Entailment probabilities, `batch_size` pairs per model run."""
        size = max(1, self._settings.batch_size)
        found: list[float] = []
        for first in range(0, len(checks), size):
            found += self._batch(checks[first : first + size])
        return found

    def _batch(self, checks: Sequence[Check]) -> list[float]:
        import numpy as np

        encodings = self._tokenizer.encode_batch(
            [(check.evidence, check.claim) for check in checks]
        )
        columns = {
            "input_ids": [e.ids for e in encodings],
            "attention_mask": [e.attention_mask for e in encodings],
            "token_type_ids": [e.type_ids for e in encodings],
        }
        feed = {name: np.asarray(columns[name], dtype=np.int64) for name in self._inputs}
        logits = np.asarray(self._session.run(None, feed)[0], dtype=np.float64)
        if logits.ndim == 1 or logits.shape[-1] == 1:  # one logit per pair
            return [float(p) for p in 1.0 / (1.0 + np.exp(-logits.reshape(len(checks))))]
        if logits.ndim != 2 or logits.shape[0] != len(checks):
            raise NliJudgeError(f"unexpected model output shape {logits.shape}")
        index = self._settings.entailment_index
        if index is None or not 0 <= index < logits.shape[1]:
            raise NliJudgeError(
                f"which of the {logits.shape[1]} labels is entailment? set `entailment_index`"
                f" in {SETTINGS_FILE}"
            )
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities = shifted / shifted.sum(axis=1, keepdims=True)
        return [float(p) for p in probabilities[:, index]]
