"""The extraction the scoring stage carries to the citations stage: written and read back
unchanged, refused (None) when it does not fit the answer, and the citations stage's event
the same whether it reads the carried extraction or extracts again."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from schemas.answers import AnswerAccepted, CitationIn
from schemas.scoring import CarriedExtraction
from services.citations.logic import cite_answer
from services.scoring.logic import score_answer
from services.text.carry import extracted_from, rows
from services.text.extraction import Extracted, extract
from tests.services.citations.helpers import answer, chunk, source, sources

TEXTS = [
    "Paris is the capital of France [1]. It lies on the Seine [2][9].",
    "The trial enrolled 40 patients [1, p. 12], and the effect held [2].\n\n[^1]: A note.",
    "第一句话[1]。第二句话没有引用。",
    "No citation at all here.",
]


def _carried(found: Extracted) -> CarriedExtraction:
    return CarriedExtraction.model_validate(rows(found))


def _same(read: Extracted | None, found: Extracted) -> None:
    assert read is not None
    assert read.citations == found.citations
    assert read.clusters == found.clusters
    assert read.sentences == found.sentences
    assert read.problems == found.problems
    assert read.pages == found.pages
    assert read.remembered() == found.remembered()


@pytest.mark.parametrize("text", TEXTS)
def test_an_extraction_reads_back_as_it_was_written(text: str) -> None:
    found = extract(text, sources(2))
    found.sentence_terms(range(len(found.sentences)))
    _same(extracted_from(text, _carried(found)), found)


def test_span_citations_and_pinpoints_read_back() -> None:
    text = "Water boils at 100 degrees. Ice melts at zero [1, p. 3]."
    supplied = [CitationIn(source_index=2, start=0, end=26), CitationIn(source_index=1, start=28, end=28)]
    found = extract(text, sources(2), supplied)
    assert any(c.span_start is not None for c in found.citations)
    assert found.pages
    _same(extracted_from(text, _carried(found)), found)


def _misfits() -> list[tuple[str, Any]]:
    def citation_end(values: dict[str, Any]) -> None:
        first = list(values["citations"][0])
        first[3] = 10_000
        values["citations"][0] = tuple(first)

    def cluster_position(values: dict[str, Any]) -> None:
        values["clusters"][0][3].append(99)

    def sentence_position(values: dict[str, Any]) -> None:
        values["sentences"][0][2].append(-1)

    def terms_without_tokens(values: dict[str, Any]) -> None:
        values["terms"]["1"] = ["extra"]

    def page_of_no_sentence(values: dict[str, Any]) -> None:
        values["pages"].append((50, 1, 3))

    def backwards_span(values: dict[str, Any]) -> None:
        values["sentences"][0] = (5, 2, [])

    return [(f.__name__, f) for f in (
        citation_end, cluster_position, sentence_position, terms_without_tokens,
        page_of_no_sentence, backwards_span,
    )]


@pytest.mark.parametrize(("name", "spoil"), _misfits())
def test_rows_that_do_not_fit_the_answer_are_refused(name: str, spoil: Any) -> None:
    text = TEXTS[0]
    found = extract(text, sources(2))
    found.sentence_terms([0])
    values = rows(found)
    spoil(values)
    assert extracted_from(text, CarriedExtraction.model_validate(values)) is None, name


def test_rows_of_the_wrong_types_fail_validation() -> None:
    values = rows(extract(TEXTS[0], sources(2)))
    first = list(values["citations"][0])
    first[1] = 7  # a marker must be a string
    values["citations"][0] = tuple(first)
    with pytest.raises(ValidationError):
        CarriedExtraction.model_validate(values)


def _scored(text: str) -> Any:
    source_list = [
        source(1, chunks=[chunk("Paris is the capital and largest city of France.")]),
        source(2, chunks=[chunk("The Seine flows through Paris to the English Channel.")]),
    ]
    return score_answer(
        AnswerAccepted(answer=answer(text, source_list), submitted_event_id="e1", size_bytes=1)
    )


def test_the_scoring_stage_carries_its_extraction_and_the_citations_stage_reads_it() -> None:
    text = "Paris is the capital of France [1]. The Seine runs to the sea [2]. Uncited."
    scored = _scored(text)
    assert scored.carried is not None
    assert scored.carried.tokens  # the citing sentences' words, worked out once
    carried = cite_answer(scored)
    again = cite_answer(scored.model_copy(update={"carried": None}))
    assert carried.model_dump() == again.model_dump()


def test_a_carried_extraction_that_does_not_fit_is_extracted_again() -> None:
    text = "Paris is the capital of France [1]. The Seine runs to the sea [2]."
    scored = _scored(text)
    assert scored.carried is not None
    spoilt = scored.carried.model_copy(update={"sentences": [(0, 10_000, [])]})
    cited = cite_answer(scored.model_copy(update={"carried": spoilt}))
    assert cited.model_dump() == cite_answer(scored).model_dump()


def test_in_one_process_nothing_is_carried() -> None:
    text = "Paris is the capital of France [1]."
    accepted = AnswerAccepted(answer=answer(text, sources(1)), submitted_event_id="e1", size_bytes=1)
    found = extract(text, accepted.answer.sources)
    assert score_answer(accepted, found).carried is None
