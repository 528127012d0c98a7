"""Skips are listed loudly at the end of a run, and fail it under CITEFLOW_FAIL_ON_SKIP=1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, REPO_ROOT

CONFTEST = "from tests.conftest import pytest_sessionfinish, pytest_terminal_summary  # noqa\n"
TESTS = """
import pytest
def test_runs(): pass
def test_needs_a_browser(): pytest.skip("no chromium here")
@pytest.mark.xfail(reason="known")
def test_known(): assert False
"""


def _run(tmp_path: Path, body: str, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_sample.py").write_text(body)
    environ = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    environ.pop("CITEFLOW_FAIL_ON_SKIP", None)
    environ.update(env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path)], capture_output=True, text=True, env=environ,
                          cwd=tmp_path, timeout=120)


def test_a_skip_is_reported_loudly_with_its_reason(tmp_path: Path) -> None:
    result = _run(tmp_path, TESTS)
    assert result.returncode == 0, result.stdout
    assert "1 TESTS SKIPPED" in result.stdout
    assert "no chromium here" in result.stdout


def test_a_skip_fails_the_run_under_fail_on_skip(tmp_path: Path) -> None:
    result = _run(tmp_path, TESTS, CITEFLOW_FAIL_ON_SKIP="1")
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout


def test_no_skip_no_report_and_no_failure(tmp_path: Path) -> None:
    result = _run(tmp_path, "def test_runs(): pass\n", CITEFLOW_FAIL_ON_SKIP="1")
    assert result.returncode == 0, result.stdout
    assert "SKIPPED" not in result.stdout


def test_the_corpus_is_in_the_repository() -> None:
    assert CORPUS_DIR == (REPO_ROOT / "tests" / "corpus").resolve() or os.environ.get(
        "CITEFLOW_TEST_CORPUS")
    for name in ("PROVENANCE.md", "sentences/pysbd_golden_rules_en.json",
                 "sentences/pysbd_golden_rules_lang.json", "answers/expertqa_cited_answers.json",
                 "pdf/tracemonkey.pdf", "epub/moby-dick.epub", "xss/payloads.json"):
        assert (REPO_ROOT / "tests" / "corpus" / name).is_file(), name


def test_ci_fails_on_skips() -> None:
    assert "CITEFLOW_FAIL_ON_SKIP=1" in (REPO_ROOT / ".ci" / "run").read_text()
