"""Marker styles beyond `[N]`: each style, exponents left alone, mixed styles, and
renderings without marker residue."""

from __future__ import annotations

import re

import orjson
import pytest

from schemas.formatted import AnswerFormatted
from services.citations.logic import cite_answer
from services.pipeline import process_answer
from services.text.extraction import extract
from tests.services.citations.helpers import scored, source


def _sources():
    return [source(i, url=f"https://example.org/{i}") for i in range(1, 6)]


def found(text: str) -> list[tuple[int, str, bool]]:
    return [(c.id, c.marker, c.valid) for c in extract(text, _sources()).citations]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fact [^2^] more.", [(2, "[^2^]", True)]),
        ("Fact [citation:1][citation:3].", [(1, "[citation:1]", True), (3, "[citation:3]", True)]),
        ("Fact<sup>1</sup>.", [(1, "<sup>1</sup>", True)]),
        ("Fact<SUP>[2]</SUP>.", [(2, "<SUP>[2]</SUP>", True)]),
        ("Fact<sup>[1][3]</sup>.", [(1, "<sup>[1][3]</sup>", True), (3, "<sup>[1][3]</sup>", True)]),
        ("The level rose.¹ Next.", [(1, "¹", True)]),
        ("Both agree¹˒² here.", [(1, "¹˒²", True), (2, "¹˒²", True)]),
        ("All three¹⁻³ here.", [(1, "¹⁻³", True), (2, "¹⁻³", True), (3, "¹⁻³", True)]),
        ("Claim [Source 4].", [(4, "[Source 4]", True)]),
        ("Claim [Sources 2, 3].", [(2, "[Sources 2, 3]", True), (3, "[Sources 2, 3]", True)]),
        ("Claim [[1]](https://example.org/1).", [(1, "[[1]](https://example.org/1)", True)]),
        ("Claim ［1］.", [(1, "［1］", True)]),
        ("主张［２，３］。", [(2, "［２，３］", True), (3, "［２，３］", True)]),
        ("Claim [9, p. 4].", [(9, "[9, p. 4]", False)]),
    ],
)
def test_each_style(text: str, expected: list[tuple[int, str, bool]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Area grows with x² and volume with 10³ units.",
        "Energy is E = mc² in that frame.",
        "Then (a+b)² expands.",
        "The area = length² rule.",
        "A room of 12 m² only.",
        "Use `<sup>1</sup>` in code.",
    ],
)
def test_exponents_and_code_are_not_citations(text: str) -> None:
    assert extract(text, _sources()).citations == []


def test_pinpoint_keeps_the_page() -> None:
    hits = extract("Claim [1, p. 12] and [2 pp. 30-31] and [3, page 7].", _sources()).citations
    assert [(c.id, c.page) for c in hits] == [(1, 12), (2, 30), (3, 7)]


def test_linked_number_cross_checks_the_url() -> None:
    extraction = extract("Claim [[2]](https://elsewhere.org/x).", _sources())
    assert [(c.valid, c.problem is not None) for c in extraction.citations] == [(False, True)]
    assert [p.code for p in extraction.problems] == ["url_mismatch"]


def test_file_search_marker_without_annotations_is_unresolved() -> None:
    extraction = extract("Claim 【4:0†source】 and 【1†notes.pdf】.", _sources())
    assert [(c.id, c.valid) for c in extraction.citations] == [(4, False), (1, False)]
    assert [p.code for p in extraction.problems] == ["unresolved_marker"] * 2


# OpenAI's citation tokens (its citation-formatting guide): private-use delimiters.
START, SEP, STOP = "\ue200", "\ue202", "\ue201"


def _token(*parts: str) -> str:
    return START + "cite" + "".join(SEP + part for part in parts) + STOP


def test_openai_citation_tokens_name_sources_by_id() -> None:
    named = [source(1, source_id="turn0file0"), source(2, doc_id="turn1news2"),
             source(3, source_id="turn2search0", doc_id="turn0file0")]
    text = (f"Tall.{_token('turn0file0')} Old.{_token('turn0file0', 'turn1news2')} "
            f"Near.{_token('turn2search0', 'L8-L13')} Lost.{_token('turn9x', 'L3')} "
            f"Line {_token('L8')} and {START}navlist{SEP}a{STOP} stay text.")
    extraction = extract(text, named)
    # A source_id wins over another source's doc_id; a line range last is not a source; a
    # token naming no source, or of another family than `cite`, is not a citation.
    assert [(c.id, c.source_index, c.valid) for c in extraction.citations] == [
        (1, 1, True), (1, 1, True), (2, 2, True), (3, 3, True), (0, None, False)]
    assert [c.marker for c in extraction.citations][:2] == [
        _token("turn0file0"), _token("turn0file0", "turn1news2")]
    assert [(p.code, "turn9x" in p.message) for p in extraction.problems][0] == (
        "unknown_source", True)
    assert [s.text for s in extraction.sentences][:2] == [
        f"Tall.{_token('turn0file0')}", f"Old.{_token('turn0file0', 'turn1news2')}"]
    assert [c.sentence_index for c in extraction.citations][:4] == [0, 1, 1, 2]


def test_openai_citation_tokens_render_as_chips_with_verdicts() -> None:
    data = {
        "answer_id": "oai",
        "text": (f"The tower is 330 metres tall.{_token('turn0file0')} "
                 f"It opened in 1889.{_token('turn0file0', 'turn1news2')}"),
        "sources": [
            {"index": 1, "source_id": "turn0file0",
             "chunks": [{"text": "The tower is 330 metres tall. It opened in 1889."}]},
            {"index": 2, "source_id": "turn1news2", "url": "https://example.org/n",
             "chunks": [{"text": "Opened to visitors in 1889, the tower drew crowds."}]},
        ],
    }
    result = process_answer(orjson.dumps(data), event_id="e1")
    assert isinstance(result, AnswerFormatted)
    assert [(c.source_index, c.valid) for c in result.citations] == [
        (1, True), (1, True), (2, True)]
    assert result.citations[0].support is not None
    assert result.citations[0].support.verdict == "supported"
    for rendering in (result.renderings.plain, result.renderings.markdown,
                      re.sub(r"<[^>]*>", "", result.renderings.html)):
        assert not any(c in rendering for c in (START, SEP, STOP, "turn0file0"))


def test_mixed_styles_cluster_by_position() -> None:
    extraction = extract("Mix [1]¹ <sup>2</sup> [^3^] [citation:4]. Next [Source 5].", _sources())
    assert [c.id for c in extraction.citations] == [1, 1, 2, 3, 4, 5]
    assert [k.marker for k in extraction.clusters] == [
        "[1]¹ <sup>2</sup> [^3^] [citation:4]",
        "[Source 5]",
    ]
    assert [s.text for s in extraction.sentences] == [
        "Mix [1]¹ <sup>2</sup> [^3^] [citation:4].",
        "Next [Source 5].",
    ]


MIXED = (
    "Rates rose [^1^] and fell [citation:2]. The level rose.¹ Costs doubled<sup>[3]</sup>. "
    "See [Source 4] and [Sources 2, 3]. Prices [[1]](https://example.org/1) held [1, p. 12]. "
    "File 【4:0†source】 says so. 东京是日本的首都［２］。大阪很大。[3] Area is x² here."
)
RESIDUE = ("[^", "^]", "citation:", "<sup", "</sup", "¹", "【", "†", "［", "[Source", "p. 12")


def test_renderings_leave_no_marker_residue() -> None:
    data = {
        "answer_id": "mixed",
        "text": MIXED,
        "sources": [
            {"index": i, "url": f"https://example.org/{i}", "chunks": [{"text": "A chunk."}]}
            for i in range(1, 5)
        ],
    }
    result = process_answer(orjson.dumps(data), event_id="e1")
    assert isinstance(result, AnswerFormatted)
    plain = result.renderings.plain.split("\n\nReferences")[0]
    for residue in RESIDUE:
        assert residue not in plain, residue
    assert "x²" in plain  # the exponent is text
    markdown = result.renderings.markdown.split("\n\n[^1]:")[0]
    for residue in ("citation:", "<sup", "¹", "【", "†", "［", "[Source"):
        assert residue not in markdown, residue
    shown = re.sub(r"<[^>]*>", "", result.renderings.html)  # the HTML's text, tags left out
    for residue in ("citation:", "¹", "【", "†", "［", "[Source"):
        assert residue not in shown, residue


def test_footnote_definitions_are_references_not_sentences() -> None:
    text = (
        "Paris is the capital[^1]. Lyon is large[^2].\n\n"
        "[^1]: Atlas of France. https://example.org/1\n"
        "[^2]: City guide [3], https://elsewhere.org/x\n"
        "    continued on an indented line.\n"
    )
    extraction = extract(text, _sources())
    assert [s.text for s in extraction.sentences] == [
        "Paris is the capital[^1].", "Lyon is large[^2]."]
    assert [c.marker for c in extraction.citations] == ["[^1]", "[^2]"]
    assert [(p.code, p.message) for p in extraction.problems] == [
        ("url_mismatch",
         "footnote [^2] links https://elsewhere.org/x, but source 2 is https://example.org/2")]


def test_pinpoint_page_steers_the_supporting_passage() -> None:
    pages = [
        source(1, chunks=[
            {"text": "The harbour froze in 1740 and trade stopped.", "page": 3, "chunk_id": "p3"},
            {"text": "The harbour froze in 1740, a later report says.", "page": 12,
             "chunk_id": "p12"},
        ]),
    ]
    free = cite_answer(scored("The harbour froze in 1740 [1].", pages))
    pinned = cite_answer(scored("The harbour froze in 1740 [1, p. 12].", pages))
    assert [p.chunk_id for p in free.extraction.passages] == ["p3"]
    assert [p.chunk_id for p in pinned.extraction.passages] == ["p12"]
    assert pinned.extraction.citations[0].page == 12
