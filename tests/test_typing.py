"""The whole of `schemas/` and `services/` type-checks (mypy, configured in pyproject.toml).

The compiled stage logic is checked by its native build anyway; this keeps the rest (runtime,
CLI, benchmarks, document ingest) from drifting, e.g. a helper whose return type changes
under a caller that still does arithmetic on it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy comes with the `native` extra")

ROOT = Path(__file__).resolve().parent.parent


def test_schemas_and_services_type_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # pyproject.toml names the files and the options
    stdout, stderr, status = api.run(["--cache-dir", str(tmp_path / "mypy-cache")])
    assert status == 0, stdout + stderr
