"""Citation markers: every syntax, what is not a citation, validity, clusters."""

from __future__ import annotations

import pytest

from services.text.extraction import extract
from tests.services.citations.helpers import source, sources


def ids(text: str, source_list=None) -> list[int]:
    return [c.id for c in extract(text, source_list or sources(5)).citations]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fact [1].", [1]),
        ("Fact [1][2].", [1, 2]),
        ("Fact [1] [2].", [1, 2]),
        ("Fact [1], [2].", [1, 2]),
        ("Fact [1],[2].", [1, 2]),
        ("Fact [1, 2].", [1, 2]),
        ("Fact [1,2,3].", [1, 2, 3]),
        ("Fact [1; 2].", [1, 2]),
        ("Fact [1-3].", [1, 2, 3]),
        ("Fact [2–4].", [2, 3, 4]),
        ("Fact [1, 3-4].", [1, 3, 4]),
        ("Fact [^2].", [2]),
        ("Fact [1](https://example.org/a).", [1]),
    ],
)
def test_numeric_syntaxes(text: str, expected: list[int]) -> None:
    assert ids(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Code `x[1]` here.",
        "```\nvalue = data[1]\n```\n",
        "~~~python\nitems[2]\n~~~",
        "See [the docs](https://example.org/1).",
        "An [abc] marker and [] and [ ].",
        "Not a list [1a] or [x1].",
        "[^1]: the footnote definition itself",
        "[2]: https://example.org/reference-definition",
        "A [link][1] in reference style.",
        "An escaped \\[1] bracket.",
        "Ellipsis [...] inside a quote.",
    ],
)
def test_not_citations(text: str) -> None:
    assert extract(text, sources(5)).citations == []


def test_marker_in_inline_code_skipped_but_following_marker_found() -> None:
    found = extract("Use `a[1]` as shown [2].", sources(3)).citations
    assert [(c.id, c.marker) for c in found] == [(2, "[2]")]


def test_positions_and_markers_match_text() -> None:
    text = "Paris is the capital [1]. It has the Eiffel Tower [2][3]."
    found = extract(text, sources(3)).citations
    assert [(c.start, c.end, c.marker) for c in found] == [
        (21, 24, "[1]"),
        (50, 53, "[2]"),
        (53, 56, "[3]"),
    ]
    for citation in found:
        assert text[citation.start : citation.end] == citation.marker


def test_document_n_is_nth_document_source() -> None:
    mixed = [source(1, "web", url="https://a.example"), source(2), source(3, "web"), source(4)]
    found = extract("Claim [Document 2] and [Document 1].", mixed).citations
    assert [(c.id, c.source_index, c.valid) for c in found] == [(4, 4, True), (2, 2, True)]


def test_web_source_url_cross_checked() -> None:
    mixed = [
        source(1),
        source(2, "web", url="https://example.com/page/"),
        source(3, "web", url="https://other.org"),
    ]
    text = (
        "A [Web Source 1](https://www.example.com/page) and "
        "B [Web Source 1](https://evil.example/x) and C [Web Source 2](https://other.org#frag)."
    )
    found = extract(text, mixed)
    assert [(c.id, c.valid) for c in found.citations] == [(2, True), (2, False), (3, True)]
    assert found.citations[1].problem and "evil.example" in found.citations[1].problem
    assert [p.code for p in found.problems] == ["url_mismatch"]
    assert found.citations[0].marker == "[Web Source 1](https://www.example.com/page)"


def test_web_source_url_with_parentheses() -> None:
    wiki = [source(1, "web", url="https://en.wikipedia.org/wiki/Mercury_(planet)")]
    found = extract("Hot [Web Source 1](https://en.wikipedia.org/wiki/Mercury_(planet)).", wiki)
    assert [(c.id, c.valid) for c in found.citations] == [(1, True)]


def test_seed_003_example_resolves_by_kind() -> None:
    mixed = [source(1, doc_id="doc123"), source(2, "web", url="https://example.com")]
    text = (
        "Machine learning is a subset of AI [Document 1] that uses algorithms "
        "[Web Source 1](https://example.com). Neural networks [1] are key components."
    )
    found = extract(text, mixed).citations
    assert [(c.id, c.valid) for c in found] == [(1, True), (2, True), (1, True)]


@pytest.mark.parametrize(
    ("text", "code", "cited"),
    [
        ("Out of range [7].", "unknown_source", 7),
        ("Zero [0].", "zero_index", 0),
        ("Footnote [^9].", "unknown_source", 9),
        ("Reversed [3-1].", "invalid_range", 3),
        ("No such document [Document 9].", "unknown_document", 9),
        ("No web source [Web Source 1](https://x.org).", "unknown_web_source", 1),
    ],
)
def test_invalid_citations_are_kept_and_flagged(text: str, code: str, cited: int) -> None:
    found = extract(text, sources(3))
    first = found.citations[0]
    assert (first.id, first.valid, first.source_index) == (cited, False, None)
    assert first.problem
    assert found.problems[0].code == code
    assert (found.problems[0].start, found.problems[0].end) == (first.start, first.end)


def test_valid_citation_has_no_problem() -> None:
    found = extract("Fine [2].", sources(3))
    assert (found.citations[0].valid, found.citations[0].problem, found.problems) == (
        True,
        None,
        [],
    )


def test_id_is_source_index_not_position() -> None:
    sparse = [source(10), source(20)]
    found = extract("A [20]. B [10]. C [2].", sparse).citations
    assert [(c.id, c.source_index, c.valid) for c in found] == [
        (20, 20, True),
        (10, 10, True),
        (2, None, False),
    ]


def test_huge_range_not_expanded() -> None:
    found = extract("Everything [1-100000].", sources(3))
    assert [c.id for c in found.citations] == [1, 100000]
    assert all(not c.valid for c in found.citations)


@pytest.mark.parametrize(
    ("text", "clusters"),
    [
        ("Fact [1][2][3].", [("[1][2][3]", [1, 2, 3])]),
        ("Fact [1] [2], [3]; [4].", [("[1] [2], [3]; [4]", [1, 2, 3, 4])]),
        ("Fact [1, 2] and then [3].", [("[1, 2]", [1, 2]), ("[3]", [3])]),
        ("A [1]. B [2].", [("[1]", [1]), ("[2]", [2])]),
        ("A [1]\n\n[2] B.", [("[1]", [1]), ("[2]", [2])]),
    ],
)
def test_clusters(text: str, clusters: list[tuple[str, list[int]]]) -> None:
    found = extract(text, sources(5))
    got = [(k.marker, [found.citations[i].id for i in k.citations]) for k in found.clusters]
    assert got == clusters
    for number, cluster in enumerate(found.clusters):
        assert text[cluster.start : cluster.end] == cluster.marker
        assert all(found.citations[i].cluster_index == number for i in cluster.citations)
