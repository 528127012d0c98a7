"""Field-level tests of `answer.formatted` as `format_answer` builds it, and the stage."""

from __future__ import annotations

import orjson
import pytest

from schemas.envelope import decode, encode, make_event
from schemas.formatted import AnswerFormatted
from schemas.topics import ANSWERS_FORMATTED, ANSWERS_RESOLVED
from services.formatting.logic import format_answer
from services.text.spacing import EXCERPT_CHARS
from services.formatting.stage import STAGE
from services.runtime.stage import Message
from tests.services.formatting.builders import Mark, Unit, ama, build_resolved, source

SOURCES = [
    source(1),
    source(2, kind="web", url=" https://example.org/a b ", title=None),
    source(3, url="javascript:alert(1)", chunks=[]),
]
PARTS = [
    Unit("S1", ("Source 1 says ", Mark("[1]", (1,)), "."), "verbatim", (1, 0, 13)),
    " ",
    Unit("S2", ("Both agree ", Mark("[1, 2]", (1, 2)), "."), "derived"),
    " Nobody ",
    Mark("[5]", (5,)),
    ".",
]


@pytest.fixture(scope="module")
def resolved():
    return build_resolved(PARTS, SOURCES, answer_id="ans-7", query="Who agrees?")


@pytest.fixture(scope="module")
def formatted(resolved) -> AnswerFormatted:
    return format_answer(resolved)


def test_answer_fields_and_extraction_pass_through(resolved, formatted) -> None:
    extraction = resolved.extraction
    assert (formatted.answer_id, formatted.query, formatted.text) == (
        "ans-7",
        "Who agrees?",
        resolved.answer.text,
    )
    # The extraction's citations, each with its support verdict added.
    assert [c.model_dump(exclude={"support"}) for c in formatted.citations] == [
        c.model_dump() for c in extraction.citations
    ]
    support = resolved.resolution.support
    assert [c.support for c in formatted.citations] == support + [None] * (
        len(extraction.citations) - len(support)
    )
    assert [(c.id, c.valid) for c in formatted.citations] == [
        (1, True),
        (1, True),
        (2, True),
        (5, False),
    ]
    assert formatted.clusters == extraction.clusters
    assert formatted.sentences == extraction.sentences
    assert formatted.citation_map == extraction.citation_map
    assert formatted.sentence_map == extraction.sentence_map
    assert formatted.segments == extraction.segments
    assert formatted.coverage == extraction.coverage
    assert formatted.links == resolved.resolution.links
    assert formatted.metadata == {"tenant": "t1"}


def test_answer_units_keep_kinds_and_spans(formatted) -> None:
    units = formatted.answer_units.units
    assert [(u.id, u.kind) for u in units] == [("S1", "verbatim"), ("S2", "derived")]
    assert units[0].source_spans[0].quote == SOURCES[0]["chunks"][0]["text"][:13]
    assert units[1].source_spans == [] and units[1].supporting_sources


def test_problems_are_extraction_then_resolution_problems(formatted) -> None:
    assert [p.code for p in formatted.problems] == [
        "invalid_citation",
        "quote_not_found",
    ]


def test_sources_carry_metadata_scores_counts_references_and_excerpts(
    resolved, formatted
) -> None:
    first, second, third = formatted.sources
    scores = {s.index: s for s in resolved.scores}
    assert [s.index for s in formatted.sources] == [1, 2, 3]
    assert (first.kind, first.title, first.doc_id, first.format) == (
        "document",
        "Study 1",
        "doc1",
        "text",
    )
    assert first.retriever_score == 1.0
    for formatted_source in formatted.sources:
        score = scores[formatted_source.index]
        assert (
            formatted_source.score,
            formatted_source.rank,
            formatted_source.eligible,
        ) == (score.score, score.rank, score.eligible)
    assert [(s.cited, s.citation_count) for s in formatted.sources] == [
        (True, 2),
        (True, 1),
        (False, 0),
    ]
    assert first.reference == ama(SOURCES[0])
    assert first.excerpt.startswith("Source 1 says the sky is blue")
    assert len(first.excerpt) <= EXCERPT_CHARS + 1 and first.excerpt.endswith("\u2026")
    assert third.excerpt == ""
    assert (second.url, second.safe_url) == (
        " https://example.org/a b ",
        "https://example.org/a%20b",
    )
    assert (third.url, third.safe_url) == ("javascript:alert(1)", None)


def test_a_source_without_reference_falls_back_to_its_title_or_url() -> None:
    formatted = format_answer(build_resolved(PARTS, SOURCES, references={}))
    assert [s.reference for s in formatted.sources] == [
        "Study 1",
        " https://example.org/a b ",
        "Study 3",
    ]


def test_output_is_a_valid_event_payload(formatted) -> None:
    dumped = formatted.model_dump(mode="json")
    assert AnswerFormatted.model_validate(dumped).model_dump(mode="json") == dumped
    assert orjson.loads(formatted.model_dump_json()) == dumped


def test_all_three_renderings_by_default(formatted) -> None:
    renderings = formatted.renderings
    assert renderings.html.startswith('<div class="citeflow-answer"')
    assert "[^1]" in renderings.markdown
    assert renderings.plain.startswith("Source 1 says. Both agree. Nobody.")


@pytest.mark.parametrize("asked", [["plain"], ["html", "markdown"], []])
def test_only_the_renderings_asked_for(asked) -> None:
    formatted = format_answer(build_resolved(PARTS, SOURCES, renderings=asked))
    produced = {
        k for k, v in formatted.renderings.model_dump().items() if v is not None
    }
    assert produced == set(asked)


def test_empty_answer_formats() -> None:
    formatted = format_answer(build_resolved([""], [source(1)]))
    assert formatted.renderings.plain == ""
    assert formatted.renderings.markdown == ""
    assert "<ol" not in formatted.renderings.html


def test_stage_reads_resolved_and_publishes_formatted(resolved) -> None:
    event = make_event(resolved, subject="ans-7", source="test", event_id="evt-9")
    message = Message(topic=ANSWERS_RESOLVED, value=encode(event), key=b"ans-7")
    (output,) = STAGE.handle(message)
    assert (output.topic, output.subject, output.cause_id) == (
        ANSWERS_FORMATTED,
        "ans-7",
        "evt-9",
    )
    assert isinstance(output.data, AnswerFormatted)
    round_trip = decode(
        encode(make_event(output.data, subject="ans-7", source="formatting"))
    )
    assert round_trip.data.model_dump() == output.data.model_dump()
