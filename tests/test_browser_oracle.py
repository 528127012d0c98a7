"""The browser oracle (`tests.browser`) itself: it passes inert HTML and catches what runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser import inert_findings

TAGS = frozenset({"div", "span", "a", "p"})


def test_inert_html_has_no_findings(browser: Any, tmp_path: Path) -> None:
    fragments = [
        '<span class="c">text &lt;script&gt;alert(1)&lt;/script&gt;</span>',
        '<a href="https://example.org/?q=%3Cx%3E">web</a> <a href="mailto:a@example.org">m</a>',
        '<a href="#here">in page</a>',
    ]
    assert inert_findings(browser, fragments, TAGS, tmp_path / "page.html") == []


def test_everything_executable_is_found_and_placed(browser: Any, tmp_path: Path) -> None:
    fragments = [
        "<p>fine</p>",
        '<img src="x" onerror="alert(1)">',
        '<a href=" javascript:alert(2)">x</a>',
        '<span onmouseover="prompt(3)" style="color:red">hover</span>',
        "<div><script>confirm(4)</script></div>",
    ]
    found = inert_findings(browser, fragments, TAGS, tmp_path / "page.html")
    assert [i for i, _ in found if i == 0] == []
    by_case = {i: " | ".join(what for j, what in found if j == i) for i, _ in found}
    assert "element <img>" in by_case[1] and "handler onerror" in by_case[1]
    assert 'URL href=" javascript:alert(2)"' in by_case[2]
    assert "handler onmouseover" in by_case[3] and "style attribute" in by_case[3]
    assert "element <script>" in by_case[4]
    # The payloads ran, as the traps saw: the broken image's handler, the hover fired by
    # the probe, and the inline script.
    ran = by_case[-1]
    assert "ran alert(1)" in ran and "ran prompt(3)" in ran and "ran confirm(4)" in ran
