"""The spans stage wired to its topics, and its output as a valid event."""

from __future__ import annotations

from typing import cast

import orjson

import schemas.topics
from schemas.citations import AnswerCited
from schemas.envelope import decode, encode, make_event, payload_json
from schemas.spans import AnswerResolved
from schemas.trusted import build, passed_on
from services.bench.spans import bench_cited, bench_spans
from services.runtime.stage import Message
from services.spans.logic import resolve_answer
from services.spans.stage import STAGE


def test_stage_reads_cited_and_writes_resolved() -> None:
    cited = bench_cited("stage-1")
    event = make_event(cited, subject="stage-1", source="test", event_id="e-1")
    message = Message(
        topic=schemas.topics.ANSWERS_CITED, value=encode(event), key=b"stage-1"
    )
    [output] = STAGE.handle(message)
    assert STAGE.name == "spans"
    assert output.topic == schemas.topics.ANSWERS_RESOLVED
    assert output.subject == "stage-1" and output.cause_id == "e-1"
    assert isinstance(output.data, AnswerResolved)


def test_output_survives_a_validating_round_trip() -> None:
    """The models are built without validation; validating their JSON changes nothing."""
    resolved = resolve_answer(bench_cited())
    event = make_event(resolved, subject="bench", source="test", event_id="e-2")
    decoded = decode(encode(event), expected=AnswerResolved).data
    assert decoded == resolved
    assert decoded.model_dump() == resolved.model_dump()


def test_bench_answer_resolves_every_verbatim_unit() -> None:
    resolved = resolve_answer(bench_cited())
    units = resolved.resolution.units
    assert sum(u.kind == "verbatim" for u in units) == 20
    assert not any(u.downgraded for u in units)
    assert len(resolved.resolution.links) == len(resolved.extraction.passages)
    for unit in units:
        for span in unit.source_spans:
            source = next(
                s for s in resolved.answer.sources if s.index == span.source_index
            )
            chunk = next(c for c in source.chunks if c.chunk_id == span.chunk_id)
            offset = span.start_char - chunk.start_char
            assert chunk.text[offset : offset + len(span.quote)] == span.quote


def test_bench_spans_reports_per_answer_timing() -> None:
    report = bench_spans(runs=3)
    assert report["runs"] == 3 and report["median_ms"] > 0
    assert (report["units"], report["verbatim_units"], report["downgraded_units"]) == (
        50,
        20,
        0,
    )


def test_an_answer_read_back_resolves_as_its_models_even_from_an_older_writer() -> None:
    """The answer of a record read back is read as its JSON and passed on as it came; the
    fields an older minor version did not write get their defaults, as models would."""
    written = orjson.loads(payload_json(bench_cited("older")))
    answer = written["answer"]
    del answer["language"]
    del answer["sources"][0]["authors"], answer["sources"][0]["chunks"][0]["href"]
    for unit in answer["answer_units"]:
        del unit["source_indexes"]
    copy = orjson.dumps(written)
    validated = AnswerCited.model_validate(orjson.loads(copy))
    rebuilt = cast(AnswerCited, build(AnswerCited, orjson.loads(copy)))
    assert rebuilt.answer.sources[0].authors == []  # (read as models, as before)
    read_back = cast(AnswerCited, build(AnswerCited, written))
    assert type(passed_on(read_back, "answer")) is dict
    resolved = payload_json(resolve_answer(read_back))
    # (the defaults follow the fields written, in the JSON as in the models rebuilt)
    assert resolved == payload_json(resolve_answer(rebuilt))
    assert orjson.loads(resolved) == orjson.loads(payload_json(resolve_answer(validated)))
