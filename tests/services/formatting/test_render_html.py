"""The HTML rendering: chips, invalid citations, units, references and links."""

from __future__ import annotations

import html5lib
import pytest

from schemas.spans import AnswerUnit
from services.formatting.allowlist import LINK_REL, start_tag
from services.formatting.logic import format_answer
from tests.services.formatting.builders import Mark, Unit, build_resolved, source
from tests.services.formatting.oracle import bleach_clean, executable_findings


def _html(parts, sources=None, **kwargs) -> str:
    sources = sources or [source(1), source(2, kind="web", url="https://example.org/a")]
    return format_answer(build_resolved(parts, sources, **kwargs)).renderings.html


def _tree(html: str):
    return html5lib.parse(html, namespaceHTMLElements=False)


def _find(html: str, tag: str, cls: str) -> list:
    return [e for e in _tree(html).iter(tag) if cls in (e.get("class") or "").split()]


def test_valid_citations_are_chips_carrying_citation_and_source() -> None:
    html = _html(["Sky ", Mark("[2]", (2,)), " and ", Mark("[1, 2]", (1, 2)), "."])
    chips = _find(html, "a", "citation")
    assert [(a.get("data-citation-id"), a.get("data-source-index")) for a in chips] == [
        ("2", "2"),
        ("1", "1"),
        ("2", "2"),
    ]
    assert all(a.get("data-valid") == "true" for a in chips)
    assert chips[0].text == "[2]"
    assert chips[0].get("href") == "#citeflow-answer-1-ref-2"
    assert chips[0].get("title") == "Study 2"
    # the in-page anchor exists: the reference list item of that source
    ids = {li.get("id") for li in _find(html, "li", "reference")}
    assert ids == {"citeflow-answer-1-ref-1", "citeflow-answer-1-ref-2"}


def test_invalid_citations_are_marked_and_not_linked() -> None:
    html = _html(
        [
            "Sky ",
            Mark("[7]", (7,), problem="no source 7"),
            " and ",
            Mark("[1]", (1,), valid=False, problem="URL mismatch"),
            ".",
        ]
    )
    invalid = _find(html, "sup", "citation-invalid")
    assert [
        (s.get("data-citation-id"), s.get("data-valid"), s.get("title"))
        for s in invalid
    ] == [("7", "false", "no source 7"), ("1", "false", "URL mismatch")]
    assert invalid[1].get("data-source-index") == "1"
    assert not [
        e for e in _tree(html).iter("a") if "citation" in (e.get("class") or "")
    ]
    assert not _find(html, "ol", "references")  # nothing validly cited


def test_verbatim_units_are_clickable_and_derived_units_are_not() -> None:
    html = _html(
        [
            Unit(
                "S1", ("Source 1 says ", Mark("[1]", (1,)), "."), "verbatim", (1, 0, 13)
            ),
            " ",
            Unit("S2", ("Synthesised advice ", Mark("[2]", (2,)), "."), "derived"),
        ]
    )
    (verbatim,) = _find(html, "span", "unit-verbatim")
    (derived,) = _find(html, "span", "unit-derived")
    assert verbatim.get("role") == "button" and verbatim.get("tabindex") == "0"
    assert verbatim.get("data-unit-id") == "S1"
    assert (
        verbatim.get("data-source-index"),
        verbatim.get("data-section-id"),
        verbatim.get("data-span-start"),
        verbatim.get("data-span-end"),
    ) == ("1", "doc1-s1", "0", "13")
    assert (
        verbatim.get("data-doc-id") == "doc1"
        and verbatim.get("data-chunk-id") == "doc1-c0"
    )
    assert derived.get("data-unit-id") == "S2" and derived.get("data-kind") == "derived"
    for attribute in ("role", "tabindex", "data-span-start", "data-source-index"):
        assert derived.get(attribute) is None
    # the chip of each unit sits inside the unit
    assert [a.get("data-citation-id") for a in verbatim.iter("a")] == ["1"]
    assert [a.get("data-citation-id") for a in derived.iter("a")] == ["2"]
    assert not any(k.startswith("on") for e in _tree(html).iter() for k in e.attrib)


def test_a_verbatim_unit_without_spans_is_not_clickable() -> None:
    html = _html([Unit("S1", ("Claimed quote.",), "verbatim")])
    (unit,) = _find(html, "span", "unit")
    assert "unit-derived" in unit.get("class") and unit.get("role") is None
    assert unit.get("data-kind") == "verbatim"


def test_reference_list_has_the_ama_reference_and_a_safe_link() -> None:
    html = _html(["A ", Mark("[1]", (1,)), " B ", Mark("[2]", (2,)), "."])
    items = _find(html, "li", "reference")
    assert [li.get("value") for li in items] == ["1", "2"]
    assert (
        "".join(items[0].find("cite").itertext())
        == "Author1 A, Writer1 B. Study 1. Journal of Tests. 2021."
    )
    assert items[0].find("a") is None  # no URL
    (link,) = items[1].iter("a")
    assert link.get("href") == "https://example.org/a"
    assert link.get("rel") == LINK_REL and link.get("target") == "_blank"
    assert "".join(items[1].itertext()) == (
        "Author2 A, Writer2 B. Study 2. Journal of Tests. 2022. https://example.org/a"
    )


def test_a_url_spelled_out_in_the_reference_becomes_its_link() -> None:
    html = _html(
        ["A ", Mark("[2]", (2,)), "."],
        references={"2": "Web page. https://example.org/a. Accessed 2024."},
    )
    (item,) = _find(html, "li", "reference")
    assert "".join(item.itertext()) == "Web page. https://example.org/a. Accessed 2024."
    (link,) = item.iter("a")
    assert link.get("href") == link.text == "https://example.org/a"


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        " JaVaScRiPt:alert(1)",
        "java\tscript:alert(1)",
        "vbscript:x",
        "data:text/html,<script>alert(1)</script>",
        "//evil.example/x",
        "/relative",
        "https:x",
        "file:///etc/passwd",
        "mailto:",
    ],
)
def test_unsafe_source_urls_are_not_linked(url: str) -> None:
    html = _html(["A ", Mark("[1]", (1,)), "."], [source(1, kind="web", url=url)])
    assert [a.get("href") for a in _tree(html).iter("a")] == [
        "#citeflow-answer-1-ref-1"
    ]


def test_text_is_escaped_and_line_breaks_kept() -> None:
    html = _html(
        ['<b onclick="x">bold</b> & "q" \'s\'', Mark("[1]", (1,)), "\r\nnext\x00\x0b"]
    )
    text = _find(html, "div", "answer-text")[0]
    assert text.find("b") is None
    assert "".join(text.itertext()) == '<b onclick="x">bold</b> & "q" \'s\'[1]\nnext'
    assert len(list(text.iter("br"))) == 1
    assert bleach_clean(html) == html and not executable_findings(html)


def test_markers_inside_units_never_split_and_overlapping_units_are_dropped() -> None:
    # "One [1]. Two [2]." : [1] is 4..7, [2] is 13..16
    resolved = build_resolved(
        ["One ", Mark("[1]", (1,)), ". Two ", Mark("[2]", (2,)), "."],
        [source(1), source(2)],
    )
    resolved.resolution.units[:] = [
        AnswerUnit(
            id="A", text="One [", kind="derived", start=0, end=5
        ),  # ends inside [1]
        AnswerUnit(
            id="B", text="[1]. Two", kind="derived", start=3, end=12
        ),  # overlaps A
        AnswerUnit(
            id="C", text="2].", kind="derived", start=14, end=17
        ),  # starts inside [2]
        AnswerUnit(id="D", text="not located", kind="derived"),
    ]
    html = format_answer(resolved).renderings.html
    spans = _find(html, "span", "unit")
    assert [s.get("data-unit-id") for s in spans] == ["A", "C"]
    assert "".join(spans[0].itertext()) == "One [1]"
    assert "".join(spans[1].itertext()) == "."
    assert bleach_clean(html) == html


def test_templates_outside_the_allow_list_are_refused() -> None:
    with pytest.raises(ValueError):
        start_tag("script")
    with pytest.raises(ValueError):
        start_tag("a", {"onclick": "x"})
    with pytest.raises(ValueError):
        start_tag("span", {"style": "color: red"})


@pytest.mark.parametrize("field", ["id", "source_index"])
def test_a_number_field_holding_text_fails_instead_of_being_emitted(field: str) -> None:
    # upstream stages may build models without validation (in-process pipeline)
    resolved = build_resolved(["A ", Mark("[1]", (1,)), "."], [source(1)])
    citations = resolved.extraction.citations
    citations[0] = citations[0].model_copy(update={field: "<script>alert(1)</script>"})
    with pytest.raises((TypeError, ValueError)):
        format_answer(resolved)
