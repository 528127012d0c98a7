"""The markdown rendering: footnote chips, a footnote reference list, and answer text that
no markdown renderer can turn into links, images or HTML."""

from __future__ import annotations

import html5lib
import pytest
from markdown_it import MarkdownIt

from services.formatting.logic import format_answer
from tests.services.formatting.builders import Mark, build_resolved, source
from tests.services.formatting.oracle import executable_findings


def _oracles() -> dict[str, MarkdownIt]:
    """CommonMark with raw HTML on and no link filter; and the same with footnotes when
    mdit-py-plugins (a test-only extra) is installed."""
    oracles = {"commonmark": MarkdownIt("commonmark", {"html": True})}
    try:
        from mdit_py_plugins.footnote import footnote_plugin
    except ImportError:
        pass
    else:
        oracles["footnotes"] = MarkdownIt("commonmark", {"html": True}).use(
            footnote_plugin
        )
    for md in oracles.values():
        md.validateLink = lambda url: True
    return oracles


ORACLES = _oracles()
SOURCES = [source(1), source(2, kind="web", url="https://example.org/a")]


def _markdown(parts, sources=SOURCES, **kwargs) -> str:
    return format_answer(build_resolved(parts, sources, **kwargs)).renderings.markdown


def _links(rendered: str) -> list[str]:
    tree = html5lib.parse(rendered, namespaceHTMLElements=False)
    return [e.get("href") for e in tree.iter("a")] + [
        e.get("src") for e in tree.iter("img")
    ]


def _text(rendered: str) -> str:
    tree = html5lib.parse(rendered, namespaceHTMLElements=False)
    return "".join(tree.find("body").itertext())


def test_citations_become_footnote_references_and_definitions() -> None:
    md = _markdown(
        [
            "Sky ",
            Mark("[2]", (2,)),
            " and ",
            Mark("[1, 2]", (1, 2)),
            ". Bad ",
            Mark("[9]", (9,)),
            ".",
        ]
    )
    body, definitions = md.split("\n\n", 1)
    assert body == "Sky [^2] and [^1][^2]. Bad \\[9\\]."
    assert definitions.splitlines() == [
        "[^1]: Author1 A, Writer1 B. Study 1. Journal of Tests. 2021.",
        "[^2]: Author2 A, Writer2 B. Study 2. Journal of Tests. 2022. <https://example.org/a>",
    ]
    if "footnotes" not in ORACLES:
        pytest.skip("mdit-py-plugins is not installed")
    rendered = ORACLES["footnotes"].render(md)
    hrefs = _links(rendered)
    assert "https://example.org/a" in hrefs
    assert {h for h in hrefs if h.startswith("#fn")}  # footnote references are links


@pytest.mark.parametrize(
    "payload",
    [
        "[click](javascript:alert(1))",
        "![x](javascript:alert(1))",
        "<img src=x onerror=alert(1)>",
        "<javascript:alert(1)>",
        "<a href='javascript:alert(1)'>x</a>",
        "[x]: javascript:alert(1)\n\nsee [x]",
        "[^1]: javascript:alert(1)",
        "\\[x](javascript:alert(1))",
        "`<script>alert(1)</script>`",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "[a][b]\n\n[b]: javascript:alert(1)",
        "```\n<script>alert(1)</script>\n```",
    ],
)
@pytest.mark.parametrize("oracle", sorted(ORACLES))
def test_answer_text_that_looks_like_links_or_html_is_inert(
    payload: str, oracle: str
) -> None:
    md = _markdown(["Before ", payload, " after ", Mark("[1]", (1,)), "."])
    rendered = ORACLES[oracle].render(md)
    assert not executable_findings(rendered)
    assert [h for h in _links(rendered) if not h.startswith("#")] == []
    # and the reader sees the characters that were written
    assert payload.replace("\n", "") in _text(rendered).replace("\n", "")


@pytest.mark.parametrize("oracle", sorted(ORACLES))
@pytest.mark.parametrize(
    "parts",
    [
        # a marker followed by "(url)" must not become a link
        ["Sky ", Mark("[1]", (1,)), "(javascript:alert(1))."],
        # a marker at a line start followed by ": url" must not become a definition
        [
            "Sky.\n",
            Mark("[1]", (1,)),
            ": javascript:alert(1)\n\nMore ",
            Mark("[1]", (1,)),
            ".",
        ],
        # "!" before a marker must not make an image
        ["Look!", Mark("[1]", (1,)), "(javascript:alert(1))"],
    ],
)
def test_text_around_a_chip_cannot_extend_it(parts, oracle: str) -> None:
    rendered = ORACLES[oracle].render(_markdown(parts))
    assert not executable_findings(rendered)
    assert [h for h in _links(rendered) if not h.startswith("#")] == []


@pytest.mark.parametrize(
    "reference",
    [
        "javascript:alert(1)",
        'javascript:alert(1) "t"',
        "<javascript:alert(1)>",
        "x (javascript:alert(1))",
        "line\n[^1]: javascript:alert(1)",
    ],
)
def test_reference_lines_never_become_link_definitions(reference: str) -> None:
    md = _markdown(["Sky ", Mark("[1]", (1,)), "."], references={"1": reference})
    rendered = ORACLES["commonmark"].render(md)
    assert _links(rendered) == []  # without footnote support nothing is a link
    assert not executable_findings(rendered)
    assert len(md.split("\n\n", 1)[1].splitlines()) == 1


def test_reference_link_is_only_a_safe_url() -> None:
    sources = [
        source(1, kind="web", url="javascript:alert(1)"),
        source(2, kind="web", url="https://example.org/x y<z>"),
    ]
    md = _markdown(["A ", Mark("[1]", (1,)), " B ", Mark("[2]", (2,)), "."], sources)
    assert "javascript" not in md
    assert md.rstrip().endswith("<https://example.org/x%20y%3Cz%3E>")


def test_a_url_spelled_out_in_the_reference_becomes_its_autolink() -> None:
    md = _markdown(
        ["A ", Mark("[2]", (2,)), "."],
        references={"2": "Web page. https://example.org/a. Accessed 2024."},
    )
    assert md.endswith("[^2]: Web page. <https://example.org/a>. Accessed 2024.\n")
