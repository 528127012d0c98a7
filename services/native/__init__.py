"""The stage logic compiled with mypyc, used only while it matches the source.

`python -m services.native.build` (run by `make install`) compiles the pure logic packages
(`COMPILED_PACKAGES`, plus `schemas.construct`, which they build their models with) into
`.native/` beside the source tree, with a manifest of the source
hashes it was built from. At import, `activate()` puts those extension modules in front of the
source modules only when every compiled source is unchanged and the interpreter is the one they
were built for: mypyc modules of one build call each other directly, so a partly stale build
would run old code. Anything else (no build, a stale one, CITEFLOW_NATIVE=0) leaves plain
Python, which produces the same outputs (a test compares the two).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
NATIVE_DIR = ROOT / ".native"
MANIFEST = NATIVE_DIR / "manifest.json"
# The packages of pure stage logic (event in, event out; no I/O). Their `stage.py` (the
# runtime seam) stays Python; benchmarks live in services/bench, outside them. Only a
# package's own modules are compiled, not its subpackages (verification/nli, the optional
# model judge, stays Python).
COMPILED_PACKAGES = (
    "text", "scoring", "citations", "spans", "formatting", "verification"
)
_SKIPPED = {"__init__.py", "stage.py"}
# Single modules outside those packages compiled with them: the stages build hundreds of event
# models per answer through `schemas.construct.maker`, and read their inputs' lists through
# `schemas.rows`, cheaper as compiled calls. Importing `schemas` activates the build too
# (schemas/__init__.py), so these modules are the compiled ones even when a process imports
# `schemas` before `services`.
COMPILED_MODULES = ("schemas/construct.py", "schemas/rows.py")


def compiled_sources(root: Path = ROOT) -> list[Path]:
    """The source files the native build compiles."""
    return sorted(
        [
            path
            for package in COMPILED_PACKAGES
            for path in (root / "services" / package).glob("*.py")
            if path.name not in _SKIPPED
        ]
        + [root / module for module in COMPILED_MODULES if (root / module).exists()]
    )


def module_name(path: Path, root: Path = ROOT) -> str:
    """`services/spans/logic.py` -> `services.spans.logic`."""
    return ".".join(path.relative_to(root).with_suffix("").parts)


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stale_sources(manifest: dict[str, object], root: Path = ROOT) -> list[str]:
    """Why the build in `manifest` cannot be used here: changed, added or removed sources,
    or another interpreter. Empty when it matches."""
    problems: list[str] = []
    if manifest.get("ext_suffix") != importlib.machinery.EXTENSION_SUFFIXES[0]:
        problems.append(f"built for {manifest.get('ext_suffix')}")
    built = manifest.get("sources")
    built = built if isinstance(built, dict) else {}
    current = {module_name(p, root): p for p in compiled_sources(root)}
    for name in sorted(built.keys() | current.keys()):
        path = current.get(name)
        if path is None or name not in built or built[name] != source_hash(path):
            problems.append(name)
    return problems


class _NativeFinder:
    """Finds the compiled extension module of each name the build holds."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.machinery.ModuleSpec(fullname, loader, origin=str(file))


_active: _NativeFinder | None = None
_checked = False


def activate() -> bool:
    """Use the native build if there is a current one (and CITEFLOW_NATIVE is not 0).

    Both `services` and `schemas` call this on import; the build is checked once per process
    (so a stale one warns once)."""
    global _active, _checked  # one finder per process
    if _checked:
        return _active is not None
    _checked = True
    if os.environ.get("CITEFLOW_NATIVE", "1") == "0" or not MANIFEST.exists():
        return False
    try:
        manifest = json.loads(MANIFEST.read_text())
        problems = stale_sources(manifest)
        files = {name: NATIVE_DIR / file for name, file in manifest["files"].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problems, files = [f"unreadable manifest ({exc})"], {}
    if problems or not all(file.exists() for file in files.values()):
        warnings.warn(
            f"native build in {NATIVE_DIR} does not match the source "
            f"({', '.join(problems[:3]) or 'missing files'}); running pure Python "
            "(`make native` rebuilds it)",
            RuntimeWarning,
            stacklevel=2,
        )
        return False
    _active = _NativeFinder(files)
    sys.meta_path.insert(0, _active)
    return True


def is_active() -> bool:
    """Whether the compiled modules are in use in this process."""
    return _active is not None


def describe() -> str:
    """Which stage logic this process runs, for a person starting citeflow."""
    if is_active():
        return f"native build ({len(compiled_sources())} modules compiled with mypyc)"
    if os.environ.get("CITEFLOW_NATIVE", "1") == "0":
        return "plain Python (CITEFLOW_NATIVE=0)"
    return "plain Python (no current native build: `make native` builds it; same outputs)"
