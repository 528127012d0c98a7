"""The README and docs/ stand alone: no references to documents outside the repository, no
work diary, and every relative link resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# A commit id: 7 to 40 hex digits with at least one letter and one digit.
DIARY = re.compile(r"\bSPEC\b|§|\b[Ss]ession \d|\b[Ii]ssue \d|\b20\d\d-\d\d-\d\d\b|"
                   r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_outside_references_or_diary(page: Path) -> None:
    found = [(n, line) for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
             if DIARY.search(line)]
    assert found == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page: Path) -> None:
    text = re.sub(r"`[^`]*`", "", page.read_text(encoding="utf-8"))
    targets = [t for t in LINK.findall(text)
               if not re.match(r"[a-z]+:", t)]
    missing = [t for t in targets if not (page.parent / t).exists()]
    assert missing == []
