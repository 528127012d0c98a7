"""An answer's weight: the bound from scans of its text never under the counts the citations
stage makes, and every event built for an answer at the limit within EVENT_MULTIPLE times it."""

from __future__ import annotations

import orjson
import pytest

from schemas.answers import MAX_TEXT_CHARS, AnswerSubmitted
from schemas.envelope import payload_json
from services.ingest.budget import (
    EVENT_MULTIPLE,
    JSON_GROWTH,
    MAX_WEIGHT,
    _bounds,
    answer_weight,
)
from services.runtime.loop import output_record
from services.runtime.operations import answer_records
from services.runtime.stage import Message
from services.runtime.topic_specs import MAX_RECORD_BYTES
from services.stages import all_stages
from services.text.extraction import extract_answer
from tests.integration.limit_answers import limit_answer


def _answer(text: str, sources: int = 60) -> AnswerSubmitted:
    return AnswerSubmitted.model_validate({
        "answer_id": "a", "text": text,
        "sources": [{"index": i, "chunks": [{"text": "x"}]} for i in range(1, sources + 1)]})


@pytest.mark.parametrize("text", [
    "a" * 50, "a." * 50, "。" * 50, "a。" * 50, "a\n" * 50, "\n" * 50, "A. " * 50, "a!" * 50,
    "- a\n" * 50, "| a | b |\n" * 20, "x[1][2][3]" * 20, "[1-50]" * 3, "[1-3, 5–50, 7]",
    "x [1, 2,3,4] y [Document 2]. [^3] [Source 1, 2]", "[1, p. 12][2, pp. 3-9]",
    "1999-2005 was long [1]. Then 3 - 4 [2].", "۱۲ [١] [٢-٤]", "",
])
def test_the_bound_is_never_under_the_counts(text: str) -> None:
    answer = _answer(text)
    bounds = _bounds(answer)
    assert bounds is not None
    extracted = extract_answer(answer)
    assert bounds[0] >= len(extracted.sentences), text
    assert bounds[1] >= len(extracted.citations), text


@pytest.mark.parametrize("text", ["Claim¹ and claim². More<sup>1</sup>.",
                                  "Quote 【4:0†source】."])
def test_rarer_markers_are_counted(text: str) -> None:
    answer = _answer(text)
    assert _bounds(answer) is None
    weight = answer_weight(answer, MAX_WEIGHT, json_bytes=100)
    assert weight.counted and weight.citations == len(extract_answer(answer).citations)


def test_span_citations_are_counted_as_cut_at_sentence_bounds() -> None:
    answer = AnswerSubmitted.model_validate({
        "answer_id": "a", "text": "One. Two. Three.", "sources": [{"index": 1}],
        "citations": [{"source_index": 1, "start": 0, "end": 16}]})
    assert _bounds(answer) is None
    weight = answer_weight(answer, MAX_WEIGHT, json_bytes=100)
    assert (weight.counted, weight.sentences, weight.citations) == (True, 3, 3)


def test_span_citations_outside_the_text_reach_no_sentence() -> None:
    answer = AnswerSubmitted.model_validate({
        "answer_id": "a", "text": "", "sources": [],
        "citations": [{"source_index": 3, "start": 1539, "end": 959},
                      {"start": 1367, "end": 451396}]})
    weight = answer_weight(answer, 0)  # a limit of 0: counted, not bounded
    assert weight.counted and weight.sentences == 0 and weight.cited_text_bytes == 0


def test_an_ordinary_answer_is_weighed_without_being_segmented() -> None:
    answer = _answer("Paris is the capital of France [1]. It is large [2].")
    weight = answer_weight(answer, MAX_WEIGHT, json_bytes=400)
    assert not weight.counted
    assert (weight.sentences, weight.citations) == (27, 2)  # half the characters; the digits
    text = len(answer.text) + 2  # as JSON, with its quotes (nothing to escape)
    # its JSON; the text as JSON and as HTML; the text for each citation; sentences; citations
    assert weight.total == 400 + text * 2 + text * 2 + 256 * 27 + 2048 * 2
    assert answer_weight(answer, 0, json_bytes=400).counted


def test_a_text_dense_with_citations_is_too_heavy_however_few_its_bytes() -> None:
    """2,100 citations in 37 KB: more than the stages can carry (each brings a link, a
    passage and a verdict), so the door weighs it over the limit."""
    answer = _answer("Claim [1]. " * 2_100)
    raw = len(payload_json(answer))
    weight = answer_weight(answer, MAX_WEIGHT, json_bytes=raw)
    assert raw < 64 * 1024
    assert weight.counted and weight.citations == 2_100 and weight.total > MAX_WEIGHT


def _one_sentence() -> dict[str, object]:
    """One sentence of 200,000 characters citing ten sources a hundred times: the citation
    map lists its text under each of them."""
    words = [("alpha", "trial", "cohort", "passage")[i % 4] for i in range(33_000)]
    text = " ".join(f"{word} [{i // 330 % 10 + 1}]" if i % 330 == 0 else word
                    for i, word in enumerate(words)) + "."
    return {"answer_id": "one-sentence", "text": text[:MAX_TEXT_CHARS - 1] + ".",
            "sources": [{"index": i, "chunks": [{"text": "A trial of a cohort. Alpha passage."}]}
                        for i in range(1, 11)]}


def _escaped() -> dict[str, object]:
    """200,000 characters that every rendering writes longer: `&`, `<`, quotes, a control
    and a directional override (each a visible token in HTML and plain text)."""
    return {"answer_id": "escaped", "text": ("&<>\"' \x01\u202e " * 20_000)[:MAX_TEXT_CHARS],
            "sources": [{"index": 1, "chunks": [{"text": "A trial."}]}]}


_SHAPES = {"citations": lambda: limit_answer("citations"), "one sentence": _one_sentence,
           "escaped": _escaped}


@pytest.mark.parametrize("shape", list(_SHAPES))
def test_the_events_of_the_heaviest_shapes_are_within_the_multiple(shape: str) -> None:
    """The heaviest shapes for their bytes (each citation in a sentence of its own; one long
    sentence citing many sources; characters written escaped) through the five stages:
    every event within EVENT_MULTIPLE times the answer's weight. The other shapes at the
    limit go through the broker in tests/integration/test_limit_answers.py."""
    data = _SHAPES[shape]()
    answer = AnswerSubmitted.model_validate(data)
    weight = answer_weight(answer, 0)
    assert weight.total <= MAX_WEIGHT
    (record,), _ = answer_records([orjson.dumps(data).decode()])
    for stage in all_stages().values():
        (output,) = stage.handle(Message(stage.input_topics[0], record.value, record.key, 0, 0,
                                         tuple(record.headers)))
        record = output_record(stage.name, output)
        assert len(record.value) <= EVENT_MULTIPLE * weight.total, record.topic
    assert record.topic == "answers.formatted"
    assert MAX_WEIGHT * EVENT_MULTIPLE <= MAX_RECORD_BYTES


@pytest.mark.parametrize("sources", [
    [{"index": i} for i in range(1, 1000)],
    [{"index": i, "chunks": [{"text": ""}] * 9} for i in range(1, 100)],
])
def test_json_as_produced_grows_at_most_json_growth_fold(sources: list[object]) -> None:
    """Every default written (an empty source is the most that grows): the bytes read bound
    the JSON as produced."""
    raw = orjson.dumps({"answer_id": "a", "text": "", "sources": sources,
                        "answer_units": [{"id": "", "text": "", "kind": "derived"}] * 50,
                        "citations": [{"start": 0, "end": 0}] * 50, "options": {}})
    produced = len(payload_json(AnswerSubmitted.model_validate_json(raw)))
    assert 5 * len(raw) < produced <= JSON_GROWTH * len(raw)
