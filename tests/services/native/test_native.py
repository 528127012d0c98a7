"""The native (mypyc) build: used only when it matches the source, and indistinguishable from
plain Python in what it produces."""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from services import native
from services.bench.e2e import ANSWER_SHAPE
from services.bench.workload import bench_answer

REPO = Path(__file__).resolve().parents[3]


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()


def test_compiled_sources_are_the_pure_logic_modules() -> None:
    names = {native.module_name(p) for p in native.compiled_sources()}
    assert {"services.spans.logic", "services.text.lexical", "services.text.sentences",
            "services.formatting.render_html", "services.scoring.logic"} <= names
    assert not {n for n in names if n.rsplit(".", 1)[1] in {"__init__", "stage", "bench"}}
    assert not {n for n in names if n.split(".")[1] in {"runtime", "cli", "ingest", "native"}}
    assert "schemas.construct" in names  # the stages' model builder, compiled with them


def test_stale_sources_name_changed_added_and_removed_modules(tmp_path: Path) -> None:
    kept = _write(tmp_path / "services/text/kept.py", "A = 1\n")
    _write(tmp_path / "services/spans/added.py", "B = 2\n")
    _write(tmp_path / "services/spans/stage.py", "not compiled\n")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    manifest = {"ext_suffix": suffix, "sources": {"services.text.kept": kept,
                                                  "services.citations.removed": "0" * 64}}
    assert native.stale_sources(manifest, tmp_path) == [
        "services.citations.removed", "services.spans.added"]

    manifest["sources"]["services.spans.added"] = hashlib.sha256(b"B = 2\n").hexdigest()
    del manifest["sources"]["services.citations.removed"]
    assert native.stale_sources(manifest, tmp_path) == []
    _write(tmp_path / "services/text/kept.py", "A = 2\n")
    assert native.stale_sources(manifest, tmp_path) == ["services.text.kept"]
    assert native.stale_sources({**manifest, "ext_suffix": ".other.so"}, tmp_path)[0] == (
        "built for .other.so")


def test_when_built_every_compiled_module_is_the_extension() -> None:
    if not native.is_active():
        pytest.skip("no current native build (make native) or CITEFLOW_NATIVE=0")
    for path in native.compiled_sources():
        module = importlib.import_module(native.module_name(path))
        assert module.__file__ is not None
        assert Path(module.__file__).is_relative_to(native.NATIVE_DIR), module.__file__


def test_importing_schemas_first_still_uses_the_compiled_construct() -> None:
    if not native.is_active():
        pytest.skip("no current native build (make native) or CITEFLOW_NATIVE=0")
    script = ("import schemas.construct, sys; from services import native; "
              "print(native.is_active(), schemas.construct.__file__)")
    done = subprocess.run([sys.executable, "-W", "error", "-c", script], cwd=REPO,
                          capture_output=True, check=True, text=True)
    active, file = done.stdout.split()
    assert active == "True"
    assert Path(file).is_relative_to(native.NATIVE_DIR), file


def test_native_and_plain_python_give_the_same_results(tmp_path: Path) -> None:
    if not native.is_active():
        pytest.skip("no current native build (make native) or CITEFLOW_NATIVE=0")
    answers = [orjson.loads((REPO / "services/examples/demo_answer.json").read_bytes())]
    answers += [bench_answer(f"n{seed}", seed=seed) for seed in range(3)]
    answers += [bench_answer(f"e{seed}", seed=seed, **ANSWER_SHAPE) for seed in range(20)]
    source = tmp_path / "answers.jsonl"
    source.write_bytes(b"\n".join(orjson.dumps(a) for a in answers) + b"\n")

    def process(native_flag: str) -> bytes:
        env = {**os.environ, "CITEFLOW_NATIVE": native_flag}
        command = [sys.executable, "-c", "from services.cli import main; main()"]
        done = subprocess.run([*command, "process", str(source)], cwd=REPO, env=env,
                              capture_output=True, check=True)
        return done.stdout

    compiled, plain = process("1"), process("0")
    assert compiled.count(b"\n") == len(answers)
    assert compiled == plain


def test_the_build_says_each_step_and_its_module_count_and_keeps_compiler_noise_in_a_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """`make run`'s first native build: a line per step with the module count on the
    terminal; what mypyc and the C compiler print goes to the log (the real build's own
    output is stood in for by a fake one that prints like them)."""
    from services.native import build as native_build

    def fake_build(say: Any) -> Path:
        say(f"[1/2] mypyc: type-checking {len(native_build.compiled_sources())} modules")
        print("services/x.py:1: warning: mypyc noise")
        os.system("echo 'setuptools box from a subprocess' >&2")  # noqa: S605
        say("[2/2] C compiler")
        return tmp_path / "manifest.json"

    monkeypatch.setattr(native_build, "build", fake_build)
    monkeypatch.setattr(native_build, "LOG", tmp_path / "native-build.log")
    assert native_build.main([]) == 0
    shown = capfd.readouterr().out
    count = len(native_build.compiled_sources())
    assert f"compiling {count} modules" in shown and "[1/2] mypyc" in shown
    assert "[2/2] C compiler" in shown and f"native build of {count} modules" in shown
    assert "noise" not in shown and "setuptools box" not in shown
    logged = (tmp_path / "native-build.log").read_text()
    assert "mypyc noise" in logged and "setuptools box" in logged


def test_up_says_which_stage_logic_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import services.native as native

    monkeypatch.setenv("CITEFLOW_NATIVE", "0")
    monkeypatch.setattr(native, "_active", None)
    assert native.describe() == "plain Python (CITEFLOW_NATIVE=0)"
    monkeypatch.delenv("CITEFLOW_NATIVE")
    assert native.describe().startswith("plain Python (no current native build")
    monkeypatch.setattr(native, "_active", object())
    assert native.describe().startswith(f"native build ({len(native.compiled_sources())}")
