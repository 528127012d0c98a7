"""Sections rebuilt from chunks: joining, gaps, conflicts and id fallbacks."""

from __future__ import annotations

import orjson

from schemas.answers import Source
from schemas.rows import Row
from services.spans.sections import SectionIndex, build_pieces, source_ref, source_rows


def _source(*chunks: dict, **fields) -> Row:
    """The field values of a validated source."""
    return source_rows([Source.model_validate({"index": 3, "chunks": list(chunks), **fields})])[0]


def test_touching_chunks_are_joined() -> None:
    pieces = build_pieces(
        _source(
            {"chunk_id": "b", "text": "world.", "section_id": "s", "start_char": 6},
            {"chunk_id": "a", "text": "hello ", "section_id": "s", "start_char": 0},
        )
    )
    assert [(p.section_id, p.section_start, p.text) for p in pieces] == [
        ("s", 0, "hello world.")
    ]
    assert [place.chunk["chunk_id"] for place in pieces[0].places] == ["a", "b"]
    assert pieces[0].place_at(7).chunk_id == "b"


def test_overlapping_chunks_are_joined_once() -> None:
    pieces = build_pieces(
        _source(
            {"text": "abcdef", "section_id": "s", "start_char": 10},
            {"text": "defghi", "section_id": "s", "start_char": 13},
            {"text": "efg", "section_id": "s", "start_char": 14},
        )
    )
    assert [(p.section_start, p.text) for p in pieces] == [(10, "abcdefghi")]


def test_a_gap_leaves_two_pieces_of_one_section() -> None:
    pieces = build_pieces(
        _source(
            {"text": "abc", "section_id": "s", "start_char": 0},
            {"text": "xyz", "section_id": "s", "start_char": 4},
        )
    )
    assert [(p.section_id, p.section_start, p.text) for p in pieces] == [
        ("s", 0, "abc"),
        ("s", 4, "xyz"),
    ]
    assert pieces[0].prefix_known and not pieces[1].prefix_known


def test_conflicting_overlap_is_not_joined() -> None:
    pieces = build_pieces(
        _source(
            {"text": "abcdef", "section_id": "s", "start_char": 0},
            {"text": "XYZ", "section_id": "s", "start_char": 4},
        )
    )
    assert [p.text for p in pieces] == ["abcdef", "XYZ"]


def test_sections_are_kept_apart() -> None:
    pieces = build_pieces(
        _source(
            {"text": "one", "section_id": "s1", "start_char": 0},
            {"text": "two", "section_id": "s2", "start_char": 3},
        )
    )
    assert [(p.section_id, p.text) for p in pieces] == [("s1", "one"), ("s2", "two")]


def test_chunk_without_start_char_is_its_own_section() -> None:
    pieces = build_pieces(
        _source(
            {"chunk_id": "c9", "text": "alpha", "section_id": "s"},
            {"text": "beta", "section_id": "s"},
        )
    )
    assert [(p.section_id, p.section_start, p.text) for p in pieces] == [
        ("c9", 0, "alpha"),
        ("source-3-chunk-1", 0, "beta"),
    ]


def test_section_id_falls_back_to_href_page_then_source() -> None:
    pieces = build_pieces(
        _source(
            {"text": "epub", "href": "OEBPS/ch1.xhtml", "start_char": 0},
            {"text": "pdf", "page": 4, "start_char": 0},
            {"text": "plain", "start_char": 0},
            doc_id="D",
        )
    )
    assert [p.section_id for p in pieces] == ["OEBPS/ch1.xhtml", "page-4", "D"]


def test_source_ref_prefers_source_id_then_doc_id_then_index() -> None:
    assert source_ref(_source(source_id="S", doc_id="D")) == "S"
    assert source_ref(_source(doc_id="D")) == "D"
    assert source_ref(_source()) == "3"


def test_utf16_offsets_only_with_a_known_prefix() -> None:
    pieces = build_pieces(
        _source(
            {"text": "\U0001f600 smile", "section_id": "s", "start_char": 0},
            {"text": "later", "section_id": "s", "start_char": 20},
        )
    )
    assert pieces[0].utf16_span(2, 4) == (3, 5)
    assert pieces[1].utf16_span(0, 1) == (None, None)


def test_empty_chunks_are_skipped() -> None:
    assert build_pieces(_source({"text": "", "section_id": "s", "start_char": 0})) == []


def _layout(index: SectionIndex) -> list[tuple[int, str, int, str, list[tuple[int, str | None]]]]:
    return [
        (p.source_index, p.section_id, p.section_start, p.text,
         [(place.position, place.chunk_id) for place in p.places])
        for p in index.pieces
    ]


def test_sources_as_json_give_the_pieces_of_their_models() -> None:
    sources = [
        {"index": 1, "doc_id": "d", "chunks": [
            {"chunk_id": "a", "text": "hello ", "section_id": "s", "start_char": 0},
            {"chunk_id": "b", "text": "world.", "section_id": "s", "start_char": 6}]},
        {"index": 2, "kind": "web", "url": "https://example.org", "chunks": [{"text": "page"}]},
    ]
    models = [Source.model_validate(source) for source in sources]
    written = orjson.loads(orjson.dumps([model.model_dump() for model in models]))
    from_json, from_models = SectionIndex.from_sources(written), SectionIndex.from_sources(models)
    assert _layout(from_json) == _layout(from_models)
    assert from_json.sources == [model.model_dump() for model in models]


def test_json_of_an_older_writer_gets_the_defaults_of_the_fields_it_lacks() -> None:
    source = Source.model_validate(
        {"index": 4, "chunks": [{"text": "abc", "page": 2, "start_char": 0}]}
    ).model_dump()
    del source["authors"], source["chunks"][0]["href"], source["chunks"][0]["section_id"]
    index = SectionIndex.from_sources([source])
    assert index.sources[0]["authors"] == []
    assert [p.section_id for p in index.pieces] == ["page-2"]
