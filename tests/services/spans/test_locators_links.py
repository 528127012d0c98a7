"""Locators (W3C TextQuoteSelector in a container) and the links built from passages."""

from __future__ import annotations

import pytest

from services.spans.locators import CONTEXT_CHARS
from services.spans.logic import resolve_answer
from tests.services.spans.builders import chunk, cited, source

_LONG = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 3
    + "TARGET WORDS. "
    + ("Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. " * 3)
)


def _span_locator(src: dict):
    unit = {
        "id": "U1",
        "text": "x",
        "kind": "verbatim",
        "quote": "TARGET WORDS",
        "source_indexes": [1],
    }
    resolved = resolve_answer(cited("x", [src], units=[unit]))
    return resolved.resolution.units[0].source_spans[0].locator


def test_selector_has_exact_and_32_characters_of_context() -> None:
    locator = _span_locator(source(1, chunk(_LONG, section_id="s", start_char=0)))
    start = _LONG.index("TARGET")
    assert locator.selector.exact == "TARGET WORDS"
    assert locator.selector.prefix == _LONG[start - CONTEXT_CHARS : start]
    assert locator.selector.suffix == _LONG[start + 12 : start + 12 + CONTEXT_CHARS]
    assert len(locator.selector.prefix) == len(locator.selector.suffix) == 32


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (
            source(
                1, chunk(_LONG, href="OEBPS/ch3.xhtml", start_char=0), format="epub"
            ),
            {"type": "epub_text", "href": "OEBPS/ch3.xhtml"},
        ),
        (
            source(1, chunk(_LONG, page=7, start_char=0), format="pdf"),
            {"type": "pdf_text", "page": 7},
        ),
        (
            source(1, chunk(_LONG), kind="web", url="https://example.org/a"),
            {"type": "web", "url": "https://example.org/a"},
        ),
        (
            source(1, chunk(_LONG, section_id="GSOP_1", start_char=0)),
            {"type": "text", "section_id": "GSOP_1"},
        ),
    ],
)
def test_container_follows_the_chunk(src: dict, expected: dict) -> None:
    locator = _span_locator(src).model_dump()
    assert {key: locator[key] for key in expected} == expected


def test_links_from_passages() -> None:
    text = "Dolor sit amet [1]. Tempor incididunt [1]."
    sources = [
        source(
            1,
            chunk(_LONG[:150], chunk_id="c0", section_id="s", start_char=0),
            chunk(_LONG[150:], chunk_id="c1", section_id="s", start_char=150),
            title="Lorem Studies",
        )
    ]
    passage = "Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."
    passages = [
        {
            "citation_id": 1,
            "sentence_index": 1,
            "source_index": 1,
            "chunk_id": "c1",
            "chunk_position": 1,
            "passage": passage,
            "score": 0.8,
        },
        {
            "citation_id": 1,
            "sentence_index": 0,
            "source_index": 1,
            "chunk_id": "c0",
            "chunk_position": 0,
            "passage": "dolor  sit\namet",
            "score": 0.5,
        },
    ]
    answer = cited(
        text,
        sources,
        sentences=["Dolor sit amet [1].", "Tempor incididunt [1]."],
        passages=passages,
    )
    first, second = resolve_answer(answer).resolution.links
    assert (first.citation_id, first.sentence_index, first.source_index) == (1, 1, 1)
    assert (first.doc_id, first.doc_title, first.chunk_id) == (
        "doc1",
        "Lorem Studies",
        "c1",
    )
    assert first.score == 1.0 and first.passage == passage and first.excerpt == passage
    assert first.locator.type == "text" and first.locator.section_id == "s"
    start = _LONG.index(passage)
    assert first.locator.selector.exact == passage
    assert first.locator.selector.prefix == _LONG[start - 32 : start]
    # A passage with different whitespace is located by normalised search: exact is the source's.
    assert second.locator.selector.exact == "dolor sit amet"


def test_unlocatable_passage_keeps_its_chunk_container() -> None:
    sources = [source(1, chunk("Some text.", chunk_id="c0", page=2, start_char=0))]
    passages = [
        {
            "citation_id": 1,
            "sentence_index": 0,
            "source_index": 1,
            "chunk_id": "c0",
            "chunk_position": 0,
            "passage": "Paraphrase not in the text.",
        }
    ]
    [link] = resolve_answer(
        cited("A [1].", sources, sentences=["A [1]."], passages=passages)
    ).resolution.links
    assert link.locator.type == "pdf_text" and link.locator.page == 2
    assert link.locator.selector.exact == "Paraphrase not in the text."
    assert link.locator.selector.prefix == ""


def test_passage_of_unknown_source_has_no_locator() -> None:
    passages = [
        {"citation_id": 5, "sentence_index": 0, "source_index": 5, "passage": "x"}
    ]
    [link] = resolve_answer(
        cited(
            "A [5].", [source(1, chunk("t"))], sentences=["A [5]."], passages=passages
        )
    ).resolution.links
    assert link.locator is None and link.doc_id is None and link.score == 0.0
