"""Where `citeflow eval` and the document benchmarks find the corpus by default:
`$CITEFLOW_CORPUS`, else the test corpus in the repository (tests/corpus)."""

from __future__ import annotations

import os
from pathlib import Path

CORPUS_ENV = "CITEFLOW_CORPUS"
REPO_CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus"
SHOWN_DEFAULT = "$CITEFLOW_CORPUS or tests/corpus"


def default_corpus() -> Path:
    """The corpus directory to use when none is given."""
    configured = os.environ.get(CORPUS_ENV)
    return Path(configured) if configured else REPO_CORPUS
