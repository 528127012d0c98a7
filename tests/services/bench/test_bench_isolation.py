"""Benchmarks live in services/bench, and nothing that runs in production imports them."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parents[3] / "services"
# Packages whose code runs in the stage and gateway processes.
PRODUCTION = [p for p in SERVICES.iterdir() if p.is_dir() and p.name not in {"bench", "cli"}]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_production_package_imports_the_benchmarks() -> None:
    offenders = sorted(
        str(path.relative_to(SERVICES))
        for package in PRODUCTION
        for path in package.rglob("*.py")
        if any(name == "services.bench" or name.startswith("services.bench.")
               for name in _imports(path))
    )
    assert offenders == []


def test_no_stage_package_holds_a_benchmark_module() -> None:
    assert sorted(str(p.relative_to(SERVICES)) for p in SERVICES.glob("*/bench.py")) == []
