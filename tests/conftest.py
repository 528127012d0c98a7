"""Shared fixtures: the corpus directory (skipped cleanly when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = (REPO_ROOT / ".." / "shared" / "corpus").resolve()


def corpus_path(*parts: str) -> Path:
    """A path inside ../shared/corpus; skips the calling test when it is absent."""
    path = CORPUS_DIR.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    return path


@pytest.fixture
def corpus() -> Path:
    """The corpus directory; skips the test when it is absent."""
    return corpus_path()
