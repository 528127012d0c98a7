"""The citations stage: maps, segments, coverage, references, passages, the event, the stage."""

from __future__ import annotations

import orjson
import pytest

from schemas import topics
from schemas.citations import AnswerCited, Citation, Sentence
from schemas.construct import construct
from schemas.envelope import encode, make_event
from services.citations.logic import cite_answer
from services.citations.maps import citation_map, sentence_map
from services.citations.references import ama_reference, references
from services.citations.segments import piece_source_ids, segment_pieces, source_ref_id
from services.citations.stage import STAGE
from services.runtime.stage import Message
from services.text.extraction import extract
from tests.services.citations.helpers import (
    chunk,
    scored,
    scored_by_scoring_stage,
    source,
    sources,
)

SEED_TEXT = (
    "The capital of France is Paris [1], located on the Seine River [1]. It has "
    "been the capital since 987 AD [2] and is known for landmarks like the Eiffel "
    "Tower, Louvre Museum, and Notre-Dame Cathedral [2]."
)


def test_seed_000_example() -> None:
    found = extract(SEED_TEXT, sources(2))
    assert len(found.citations) == 4
    assert [s.text for s in found.sentences] == [
        "The capital of France is Paris [1], located on the Seine River [1].",
        SEED_TEXT[SEED_TEXT.index("It has") :],
    ]
    assert citation_map(found) == {
        "1": [(0, found.sentences[0].text)],
        "2": [(1, found.sentences[1].text)],
    }
    assert sentence_map(found) == {"0": [1], "1": [2]}


def test_maps_with_invalid_and_uncited_sentences() -> None:
    found = extract("One [1][9]. Two. Three [1].", sources(2))
    assert sentence_map(found) == {"0": [1, 9], "1": [], "2": [1]}
    assert citation_map(found) == {
        "1": [(0, "One [1][9]."), (2, "Three [1].")],
        "9": [(0, "One [1][9].")],
    }
    assert found.sentences_by_source() == {1: [0, 2]}


def _cited(text: str, source_list) -> AnswerCited:
    return cite_answer(scored(text, source_list))


def test_segments_tile_the_text_and_carry_sources() -> None:
    mixed = [source(1, doc_id="doc123"), source(2, "web", url="https://example.com")]
    text = (
        "Machine learning is a subset of AI [Document 1] that uses algorithms "
        "[Web Source 1](https://example.com). Neural networks [3] are key components."
    )
    segments = _cited(text, mixed).extraction.segments
    assert "".join(s.text for s in segments) == text
    assert [s.text for s in segments] == [
        "Machine learning is a subset of AI [Document 1]",
        " that uses algorithms [Web Source 1](https://example.com).",
        " Neural networks [3]",
        " are key components.",
    ]
    assert [s.source_ids for s in segments] == [["doc123"], ["https://example.com"], [], []]
    first, second, third = (s.citations for s in segments[:3])
    assert (first[0].source_kind, first[0].source_id, first[0].valid) == (
        "document",
        "doc123",
        True,
    )
    assert (second[0].id, second[0].source_kind) == (2, "web")
    assert (third[0].id, third[0].source_index, third[0].valid) == (3, None, False)
    for segment in segments:
        assert text[segment.start : segment.end] == segment.text


def test_coverage_counts() -> None:
    text = "Cited one [1]. Not cited. Cited by two [1][2]. Invalid only [7]."
    coverage = _cited(text, sources(3)).extraction.coverage
    assert (coverage.sentences_total, coverage.sentences_cited) == (4, 2)
    assert coverage.sentence_ratio == pytest.approx(0.5)
    chars_cited = len("Cited one .") + len("Cited by two .")
    chars_total = chars_cited + len("Not cited.") + len("Invalid only .")
    assert (coverage.chars_cited, coverage.chars_total) == (chars_cited, chars_total)
    assert coverage.char_ratio == pytest.approx(chars_cited / chars_total)
    per = {k: (v.citations, v.sentences) for k, v in coverage.per_source.items()}
    assert per == {"1": (2, 2), "2": (1, 1), "3": (0, 0)}


def test_coverage_of_empty_answer() -> None:
    coverage = _cited("", sources(1)).extraction.coverage
    assert (coverage.sentences_total, coverage.sentence_ratio, coverage.char_ratio) == (0, 0.0, 0.0)


def test_ama_reference_seed_004() -> None:
    paper = source(
        1,
        title="GLP-1 vs Metformin Study",
        authors=["Smith J", "Jones A"],
        journal="Diabetes Care",
        year=2023,
        doi="10.1234/example",
    )
    assert ama_reference(paper) == (
        "Smith J, Jones A. GLP-1 vs Metformin Study. Diabetes Care. 2023. doi:10.1234/example"
    )


def test_ama_reference_et_al_and_fallbacks() -> None:
    many = source(1, title="Does it work?", authors=["A A", "B B", "C C", "D D"], year=2020)
    assert ama_reference(many) == "A A, B B, C C, et al. Does it work? 2020."
    three = source(2, authors=["A A", "B B", "C C"], title="Title.")
    assert ama_reference(three) == "A A, B B, C C. Title."
    web = source(3, "web", title="Page", url="https://example.org/p")
    assert ama_reference(web) == "Page. https://example.org/p"
    assert ama_reference(source(4)) == ""
    assert references([many, source(4)]) == {"1": ama_reference(many)}


def _library() -> list:
    return [
        source(
            1,
            score=9.0,
            doc_id="d1",
            chunks=[
                chunk(
                    "Cats sleep a lot. Dogs bark at night. Parrots repeat words.",
                    chunk_id="c1",
                    section_id="S1",
                    start_char=100,
                ),
                chunk(
                    "Whales sing long songs in the ocean. Fish swim.",
                    chunk_id="c2",
                    section_id="S1",
                    start_char=200,
                ),
            ],
        ),
        source(
            2, score=5.0, chunks=[chunk("Dogs bark loudly at strangers at night.", chunk_id="k1")]
        ),
        source(3, score=1.0, chunks=[chunk("Dogs bark.", chunk_id="z1")]),
    ]


def test_supporting_passage_is_best_window_with_section_offsets() -> None:
    cited = _cited("Whales sing songs [1]. Dogs bark at night [1][2].", _library())
    passages = cited.extraction.passages
    by_pair = {(p.sentence_index, p.source_index): p for p in passages}
    whales = by_pair[(0, 1)]
    assert (whales.chunk_id, whales.chunk_position, whales.section_id) == ("c2", 1, "S1")
    assert whales.passage == "Whales sing long songs in the ocean."
    assert (whales.start_char, whales.end_char) == (200, 200 + len(whales.passage))
    assert whales.score == pytest.approx(1.0)
    dogs = by_pair[(1, 1)]
    assert dogs.passage == "Dogs bark at night."
    assert (dogs.start_char, dogs.end_char) == (118, 137)
    # A chunk without start_char is its own section: offsets inside the chunk.
    other = by_pair[(1, 2)]
    assert (other.section_id, other.start_char) == ("k1", 0)
    assert other.passage == "Dogs bark loudly at strangers at night."


def test_passages_follow_passage_sources_order_and_cap() -> None:
    cited = cite_answer(
        scored("Dogs bark at night [3][2][1]. Whales sing [1].", _library(), [2, 1])
    )
    pairs = [(p.source_index, p.sentence_index) for p in cited.extraction.passages]
    assert pairs == [(2, 0), (1, 0), (1, 1)]


def test_no_passages_without_passage_sources() -> None:
    cited = cite_answer(scored("Dogs bark at night [1][2][3].", _library(), []))
    assert cited.extraction.passages == []


def test_with_the_real_scoring_stage() -> None:
    """The scoring stage decides eligibility and the cap; passages follow its choice."""
    text = "Dogs bark at night [3][2][1]. Whales sing [1]."
    capped = cite_answer(scored_by_scoring_stage(text, _library(), max_citations=2))
    assert len(capped.passage_sources) == 2
    assert [p.source_index for p in capped.extraction.passages if p.sentence_index == 0] == (
        capped.passage_sources
    )
    none = cite_answer(scored_by_scoring_stage(text, _library(), min_citation_score=1.01))
    assert none.passage_sources == [] and none.extraction.passages == []


def test_cite_answer_event_round_trips() -> None:
    text = "Paris is the capital.[1] It has 2 million people [2][9]. Ok."
    cited = _cited(text, sources(2))
    extraction = cited.extraction
    assert [c.id for c in extraction.citations] == [1, 2, 9]
    assert [k.citation_ids for k in extraction.clusters] == [[1], [2, 9]]
    assert [s.citation_ids for s in extraction.sentences] == [[1], [2, 9], []]
    assert extraction.citation_map["9"][0].sentence_index == 1
    assert [p.code for p in extraction.problems] == ["unknown_source"]
    dumped = cited.model_dump(mode="json")
    assert AnswerCited.model_validate(dumped).model_dump(mode="json") == dumped


def test_construct_matches_model_construct() -> None:
    values = {
        "start": 1,
        "end": 4,
        "start_utf16": 1,
        "end_utf16": 4,
        "id": 2,
        "marker": "[2]",
        "source_index": 2,
        "valid": True,
        "problem": None,
        "cluster_index": 0,
        "sentence_index": 0,
        "page": None,
        "span": None,
    }
    fast = construct(Citation, dict(values))
    slow = Citation.model_construct(**values)
    assert fast == slow
    assert fast.model_dump() == slow.model_dump() == Citation.model_validate(values).model_dump()
    assert fast.model_fields_set == slow.model_fields_set
    sentence = construct(
        Sentence,
        {
            "start": 0,
            "end": 1,
            "start_utf16": 0,
            "end_utf16": 1,
            "index": 0,
            "text": "x",
            "citation_ids": [],
        },
    )
    assert (
        sentence.model_dump_json()
        == Sentence.model_validate(sentence.model_dump()).model_dump_json()
    )


def test_stage_consumes_scored_and_produces_cited() -> None:
    assert (STAGE.name, STAGE.input_topics, STAGE.output_topics) == (
        "citations",
        (topics.ANSWERS_SCORED,),
        (topics.ANSWERS_CITED,),
    )
    event = make_event(scored("Fact [1]. More [2].", sources(2)), subject="a1", source="test")
    raw = encode(event)
    outputs = STAGE.handle(Message(topic=topics.ANSWERS_SCORED, value=raw))
    assert len(outputs) == 1
    cited = outputs[0].data
    assert isinstance(cited, AnswerCited)
    assert [c.id for c in cited.extraction.citations] == [1, 2]
    assert orjson.loads(cited.model_dump_json())["extraction"]["sentence_map"] == {
        "0": [1],
        "1": [2],
    }


def test_passage_widens_to_neighbouring_sentences_that_add_terms() -> None:
    library = [
        source(
            1,
            chunks=[
                chunk(
                    "Cats sleep. Whales sing songs. Oceans are deep and blue. Fish swim.",
                    chunk_id="c1",
                    start_char=10,
                )
            ],
        )
    ]
    passage = _cited("Whales sing in deep blue oceans [1].", library).extraction.passages[0]
    assert passage.passage == "Whales sing songs. Oceans are deep and blue."
    assert (passage.start_char, passage.end_char) == (22, 22 + len(passage.passage))
    assert passage.score == pytest.approx(1.0)


def test_bench_extraction_reports_both_sides() -> None:
    """The benchmark's shape (no timing threshold: timings are for the benchmark report)."""
    pytest.importorskip("pysbd")
    from services.bench.extraction import bench_extraction

    report = bench_extraction(6)
    assert (report["citations"], report["sentences"]) == (50, report["pysbd_sentences"])
    assert report["words"] >= 1000
    for key in ("extraction_ms", "citations_stage_ms", "pysbd_ms", "speedup_vs_pysbd"):
        assert report[key] > 0
    assert report["within_budget"] == (report["extraction_ms"] <= report["budget_ms"])


@pytest.mark.parametrize(
    "text",
    [
        (
            "Machine learning [Document 1] uses algorithms [Web Source 1](https://example.com). "
            "Neural networks [3] are key [1], [2]. Not cited. Twice [1][1]."
        ),
        "",
        "No citations at all. None here either",
        "Ends with a marker [2]",
        "Quoted “claim.” [1]) Next [9]; then [1-2]!",
    ],
)
def test_segments_match_the_plain_segment_pieces(text: str) -> None:
    mixed = [source(1, doc_id="doc1"), source(2, "web", url="https://example.com")]
    extracted = extract(text, mixed)
    ref_ids = {s.index: source_ref_id(s) for s in mixed}
    kinds = {s.index: s.kind for s in mixed}
    expected = [
        (
            piece.start,
            piece.end,
            [
                (c.id, c.marker, c.start, c.end, c.source_index, kinds.get(c.source_index),
                 ref_ids.get(c.source_index), c.valid)
                for c in piece.citations
            ],
            piece_source_ids(piece, ref_ids),
        )
        for piece in segment_pieces(text, extracted)
    ]
    segments = cite_answer(scored(text, mixed)).extraction.segments
    assert [
        (
            s.start,
            s.end,
            [
                (c.id, c.marker, c.start, c.end, c.source_index, c.source_kind, c.source_id,
                 c.valid)
                for c in s.citations
            ],
            s.source_ids,
        )
        for s in segments
    ] == expected
