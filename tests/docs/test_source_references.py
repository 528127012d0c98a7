"""The source tree stands alone like the docs: no comment, docstring or help text sends the
reader to the project's internal design brief or to its internal issue tracker, which no
user or newcomer can open. A comment states the rule and its reason itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = ("services", "clients", "deploy", "tests", "schemas", "citeflow", ".ci")
FILES = ("Makefile", "pyproject.toml", "docker-compose.yml")
# Third-party, installed or generated-at-build files, and the test corpora (real books
# and papers, whose text is not ours).
SKIP_DIRS = {"node_modules", "vendor", "__pycache__", ".native", ".native.new",
             ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache"}
SKIP_TREES = (ROOT / "tests" / "corpus",)

# The brief by name, a section sign with a number, an issue number.
BRIEF = re.compile(r"\bSPEC\b|§\s*\d")
ISSUE = re.compile(r"\b[Ii]ssues?\s+(?:#\s*)?\d")
# Sections of published work, cited as such: removed from a line before it is checked.
CITATIONS = ("Gao et al., 2023, §2.2",)


def _files() -> Iterator[Path]:
    for name in TREES:
        for path in sorted((ROOT / name).rglob("*")):
            if (path.is_file() and not SKIP_DIRS.intersection(path.relative_to(ROOT).parts)
                    and not any(path.is_relative_to(tree) for tree in SKIP_TREES)):
                yield path
    for name in FILES:
        if (ROOT / name).is_file():
            yield ROOT / name


def references(text: str) -> list[tuple[int, str]]:
    """`(line number, line)` of every reference to the brief or an issue in `text`."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        checked = line
        for citation in CITATIONS:
            checked = checked.replace(citation, "")
        if BRIEF.search(checked) or ISSUE.search(checked):
            found.append((n, line.strip()[:100]))
    return found


def test_no_references_to_the_brief_or_issues() -> None:
    found = []
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # binary
            continue
        rel = path.relative_to(ROOT).as_posix()
        found += [f"{rel}:{n}: {line}" for n, line in references(text)]
    assert not found, "internal references in the source:\n" + "\n".join(found)


def test_the_patterns_catch_what_they_should_and_only_that() -> None:
    brief, sign = "SP" + "EC", chr(0xA7)
    for bad in (f"the gateway ({brief} {sign}9)", f"see {sign}4.5", f"{brief}: keys",
                "a 300 MB body (iss" + "ue 22).", "Iss" + "ue 22 item 1:", "iss" + "ue #13"):
        assert references(bad), bad
    for good in ("ALCE (Gao et al., 2023, §2.2)", "CODEC_SPECS, SPECVERSION", "_SPECIAL",
                 "the issue is the lock", "issued 3 keys", "github.com/a/b/issues/12"):
        assert not references(good), good
