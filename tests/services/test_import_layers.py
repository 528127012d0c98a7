"""Modules that must not import each other in a circle (type-checking imports included):
the stage runtime, and the gateway and stream benchmarks."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imports(path: Path) -> set[str]:
    """Every module `path` imports, at any depth of its code (functions, TYPE_CHECKING)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def graph(package: str) -> dict[str, set[str]]:
    directory = ROOT.joinpath(*package.split("."))
    modules = {f"{package}.{p.stem}": p for p in directory.glob("*.py") if p.stem != "__init__"}
    return {name: imports(path) & set(modules) for name, path in modules.items()}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle, if there is any."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node] & set(edges)):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_stage_runtime_imports_in_no_circle() -> None:
    assert cycle(graph("services.runtime")) is None


def test_no_module_takes_a_private_name_of_another_in_the_runtime() -> None:
    for path in (ROOT / "services" / "runtime").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("services."):
                assert not [a.name for a in node.names if a.name.startswith("_")], path


def test_the_gateway_and_stream_benchmarks_do_not_import_each_other() -> None:
    edges = graph("services.bench")
    assert not ("services.bench.stream" in edges["services.bench.gateway"]
                and "services.bench.gateway" in edges["services.bench.stream"])
    assert cycle({k: v for k, v in edges.items()
                  if k in ("services.bench.gateway", "services.bench.stream",
                           "services.bench.servers")}) is None


def test_the_detector_finds_a_circle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_formatting_takes_nothing_from_the_spans_stage() -> None:
    for path in (ROOT / "services" / "formatting").glob("*.py"):
        assert not [m for m in imports(path) if m.startswith("services.spans")], path
