"""`resolve_answer` on upstream answer units: spans, section offsets, downgrades."""

from __future__ import annotations

from services.spans.logic import resolve_answer
from tests.services.spans.builders import chunk, cited, section_text, source


def _unit(
    uid: str, text: str, kind: str = "verbatim", quote: str | None = None, *sources: int
):
    return {
        "id": uid,
        "text": text,
        "kind": kind,
        "quote": quote,
        "source_indexes": list(sources),
    }


def test_verbatim_quote_becomes_a_span_with_section_offsets() -> None:
    text = "Officers must file FIR immediately [1]."
    answer = cited(
        text,
        [
            source(
                1,
                chunk(
                    "Step 4. File FIR immediately.",
                    section_id="GSOP_004",
                    start_char=40,
                ),
            )
        ],
        units=[_unit("S1", text, "verbatim", "File FIR immediately", 1)],
    )
    unit = resolve_answer(answer).resolution.units[0]
    assert unit.kind == "verbatim" and not unit.downgraded
    [span] = unit.source_spans
    assert (span.section_id, span.start_char, span.end_char) == ("GSOP_004", 48, 68)
    assert span.quote == "File FIR immediately"
    assert (span.doc_id, span.source_index) == ("doc1", 1)
    assert (unit.start, unit.end) == (0, len(text))
    assert unit.supporting_sources == []


def test_quote_across_a_chunk_boundary_resolves_in_the_section() -> None:
    sources = [
        source(
            2,
            chunk(
                "The committee met on Monday and ",
                chunk_id="c1",
                section_id="s",
                start_char=0,
            ),
            chunk("decided to adjourn.", chunk_id="c2", section_id="s", start_char=32),
        )
    ]
    answer = cited(
        "x", sources, units=[_unit("U1", "x", "verbatim", "Monday and decided", 2)]
    )
    [span] = resolve_answer(answer).resolution.units[0].source_spans
    assert span.quote == "Monday and decided"
    assert section_text(answer, 2, "s")[span.start_char : span.end_char] == span.quote
    assert span.chunk_id == "c1"
    assert span.start_utf16 == span.start_char


def test_normalised_match_keeps_the_source_text() -> None:
    sources = [
        source(1, chunk("the \ufb01rst infor-\nmation \u201cage\u201d", start_char=0))
    ]
    answer = cited(
        "x", sources, units=[_unit("U1", "x", "verbatim", 'first information "age"', 1)]
    )
    [span] = resolve_answer(answer).resolution.units[0].source_spans
    assert span.quote == "\ufb01rst infor-\nmation \u201cage\u201d"
    assert span.locator is not None and span.locator.selector.exact == span.quote


def test_not_found_is_downgraded_with_a_closest_match() -> None:
    text = "It was the best of tims [1]."
    sources = [
        source(
            1,
            chunk("It was the best of times, it was the worst of times.", start_char=0),
            source_id="S-1",
        ),
    ]
    answer = cited(
        text, sources, units=[_unit("U1", text, "verbatim", "the best of tims", 1)]
    )
    resolved = resolve_answer(answer).resolution
    [unit] = resolved.units
    assert unit.kind == "derived" and unit.downgraded
    assert unit.source_spans == []
    assert unit.supporting_sources == ["S-1"]
    closest = unit.closest_match
    assert closest is not None
    # Hypothesis semantics: among equally good occurrences, the earliest-ending one.
    assert closest.text == "the best of tim" and 0 < closest.score < 1
    assert (closest.start_char, closest.end_char) == (7, 22)
    assert [p.code for p in resolved.problems] == ["quote_not_found"]


def test_hopeless_quote_has_no_closest_match() -> None:
    answer = cited(
        "x",
        [source(1, chunk("Completely unrelated words here.", start_char=0))],
        units=[_unit("U1", "x", "verbatim", "zzzz qqqq xxxx", 1)],
    )
    unit = resolve_answer(answer).resolution.units[0]
    assert unit.kind == "derived" and unit.closest_match is None


def test_case_difference_is_downgraded() -> None:
    answer = cited(
        "x",
        [source(1, chunk("File FIR immediately.", start_char=0))],
        units=[_unit("U1", "x", "verbatim", "file fir immediately", 1)],
    )
    assert resolve_answer(answer).resolution.units[0].kind == "derived"


def test_derived_units_keep_their_sources_and_no_spans() -> None:
    answer = cited(
        "Preserve evidence safely.",
        [
            source(1, chunk("Preserve evidence safely."), source_id="GSOP_004"),
            source(2),
        ],
        units=[_unit("S2", "Preserve evidence safely.", "derived", None, 1, 2, 7)],
    )
    unit = resolve_answer(answer).resolution.units[0]
    assert unit.kind == "derived" and unit.source_spans == []
    assert unit.supporting_sources == ["GSOP_004", "doc2", "7"]


def test_quote_defaults_to_unit_text_without_markers() -> None:
    text = "Water boils at 100 degrees [1]."
    answer = cited(
        text,
        [source(1, chunk("At sea level, water boils at 100 degrees.", start_char=0))],
        units=[_unit("U1", "boils at 100 degrees [1]", "verbatim", None, 1)],
        sentences=[text],
    )
    [span] = resolve_answer(answer).resolution.units[0].source_spans
    assert span.quote == "boils at 100 degrees"


def test_own_sources_first_then_any_source() -> None:
    sources = [
        source(1, chunk("shared sentence here", start_char=0)),
        source(2, chunk("a shared sentence here too", start_char=0)),
        source(3, chunk("nothing", start_char=0)),
    ]
    own = cited(
        "x", sources, units=[_unit("U1", "x", "verbatim", "shared sentence", 2)]
    )
    assert [
        s.source_index for s in resolve_answer(own).resolution.units[0].source_spans
    ] == [2]
    elsewhere = cited(
        "x", sources, units=[_unit("U1", "x", "verbatim", "shared sentence", 3)]
    )
    spans = resolve_answer(elsewhere).resolution.units[0].source_spans
    assert [s.source_index for s in spans] == [1, 2]


def test_unit_positions_carry_utf16_offsets() -> None:
    text = "\U0001f600 Intro. Quoted words here."
    answer = cited(
        text,
        [source(1, chunk("Quoted words here.", start_char=0))],
        units=[_unit("U1", "Quoted words here.", "verbatim", "Quoted words here", 1)],
    )
    unit = resolve_answer(answer).resolution.units[0]
    assert (unit.start, unit.end) == (9, 27)
    assert (unit.start_utf16, unit.end_utf16) == (10, 28)


def test_unit_text_missing_from_answer_is_reported() -> None:
    answer = cited(
        "Answer.",
        [source(1, chunk("Some words here.", start_char=0))],
        units=[_unit("U1", "Not in the answer", "verbatim", "Some words", 1)],
    )
    resolved = resolve_answer(answer).resolution
    unit = resolved.units[0]
    assert unit.kind == "verbatim" and unit.start is None and unit.start_utf16 is None
    assert [p.code for p in resolved.problems] == ["unit_not_in_answer"]


def test_span_after_a_gap_has_no_utf16_offsets() -> None:
    sources = [
        source(
            1,
            chunk("first chunk", section_id="s", start_char=0),
            chunk("second chunk text", section_id="s", start_char=20),
        )
    ]
    answer = cited("x", sources, units=[_unit("U1", "x", "verbatim", "chunk text", 1)])
    [span] = resolve_answer(answer).resolution.units[0].source_spans
    assert (span.start_char, span.end_char) == (27, 37)
    assert span.start_utf16 is None and span.end_utf16 is None


def test_chunk_without_offsets_resolves_within_the_chunk() -> None:
    sources = [source(1, chunk("alpha beta gamma", chunk_id="c7", section_id="GS"))]
    answer = cited("x", sources, units=[_unit("U1", "x", "verbatim", "beta", 1)])
    [span] = resolve_answer(answer).resolution.units[0].source_spans
    assert (span.section_id, span.start_char, span.end_char) == ("c7", 6, 10)
    assert span.start_utf16 == 6


def test_closest_match_far_into_a_long_section() -> None:
    filler = "Unrelated filler sentence number {} about other matters. "
    body = "".join(filler.format(n) for n in range(300))
    text = body + "The tribunal dismissed the appeal on procedural grounds. " + body
    answer = cited(
        "x",
        [source(1, chunk(text, section_id="s", start_char=100))],
        units=[
            _unit(
                "U1",
                "x",
                "verbatim",
                "The tribunal dismised the appeal on procedural grounds",
                1,
            )
        ],
    )
    closest = resolve_answer(answer).resolution.units[0].closest_match
    assert closest is not None
    assert closest.text == "The tribunal dismissed the appeal on procedural grounds"
    assert closest.start_char == 100 + len(body)
    assert closest.score > 0.95


def test_repeated_source_indexes_give_one_span_per_section() -> None:
    answer = cited(
        "x",
        [source(1, chunk("alpha beta gamma", section_id="s", start_char=0))],
        units=[_unit("U1", "x", "verbatim", "beta gamma", 1, 1)],
    )
    assert len(resolve_answer(answer).resolution.units[0].source_spans) == 1
