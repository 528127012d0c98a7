"""Units derived from sentences when upstream sent no `answer_units`."""

from __future__ import annotations

from services.spans.logic import resolve_answer
from tests.services.spans.builders import chunk, cited, source

_SOURCES = [
    source(
        1,
        chunk(
            "Paris is the capital of France. It hosts the \u201cLouvre museum and its gardens\u201d.",
            section_id="s1",
            start_char=0,
        ),
        source_id="wiki-paris",
    ),
    source(2, chunk("Lyon is known for its cuisine.", section_id="s2", start_char=0)),
]


def test_sentence_found_in_a_chunk_is_verbatim() -> None:
    text = "Paris is the capital of France [1]. Lyon has good food [2]."
    answer = cited(
        text,
        _SOURCES,
        sentences=["Paris is the capital of France [1].", "Lyon has good food [2]."],
    )
    first, second = resolve_answer(answer).resolution.units
    assert (first.id, first.kind, first.origin) == ("S1", "verbatim", "sentence")
    assert first.source_spans[0].quote == "Paris is the capital of France."
    assert (first.start, first.end) == (0, len("Paris is the capital of France [1]."))
    assert (second.kind, second.origin, second.supporting_sources) == (
        "derived",
        "sentence",
        ["doc2"],
    )
    assert second.source_spans == []


def test_sentence_found_without_its_final_punctuation() -> None:
    text = "It hosts the Louvre museum [1]!"
    sources = [
        source(1, chunk("It hosts the Louvre museum, a landmark.", start_char=0))
    ]
    [unit] = resolve_answer(cited(text, sources, sentences=[text])).resolution.units
    assert unit.kind == "verbatim"
    assert unit.source_spans[0].quote == "It hosts the Louvre museum"


def test_quotation_inside_a_sentence_is_verbatim() -> None:
    text = 'The guide praises "Louvre museum and its gardens" highly [1].'
    [unit] = resolve_answer(cited(text, _SOURCES, sentences=[text])).resolution.units
    assert (unit.kind, unit.origin) == ("verbatim", "quotation")
    [span] = unit.source_spans
    assert span.quote == "Louvre museum and its gardens"
    assert span.source_index == 1 and span.section_id == "s1"


def test_short_quotations_and_sentences_are_not_verbatim() -> None:
    text = 'It is "Paris" [1]. France [1].'
    units = resolve_answer(
        cited(text, _SOURCES, sentences=['It is "Paris" [1].', "France [1]."])
    ).resolution.units
    assert [u.kind for u in units] == ["derived", "derived"]
    assert units[0].supporting_sources == ["wiki-paris"]


def test_invalid_citations_do_not_support() -> None:
    text = "Something synthesised [9]."
    [unit] = resolve_answer(cited(text, _SOURCES, sentences=[text])).resolution.units
    assert unit.kind == "derived" and unit.supporting_sources == []


def test_empty_upstream_units_fall_back_to_sentences() -> None:
    text = "Paris is the capital of France [1]."
    answer = cited(text, _SOURCES, units=[], sentences=[text])
    [unit] = resolve_answer(answer).resolution.units
    assert unit.origin == "sentence" and unit.kind == "verbatim"
