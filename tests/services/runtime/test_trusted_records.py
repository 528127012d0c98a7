"""Records a stage of this pipeline wrote are read without validation; everything else (a
foreign producer, bytes altered on the topic, another version) is validated in full, and a
poison record is a dead letter with its reason. Over encoded records the five stages give
exactly what `citeflow process` gives."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import orjson
import pytest

from schemas.citations import AnswerCited
from schemas.envelope import encode, headers_for, make_event, payload_json
from schemas.formatted import AnswerFormatted
from schemas.spans import AnswerResolved
from schemas.trusted import CHECKSUM_HEADER, PARTS_HEADER, checksum, written_here
from services.bench.workload import bench_answer
from services.pipeline import process_answer
from services.runtime.config import RuntimeConfig
from services.runtime.dead_letters import Record
from services.runtime.loop import StageRunner, output_record
from services.runtime.operations import answer_records
from services.runtime.stage import Message, PermanentError, Stage, decode_input
from services.stages import all_stages
from tests.conftest import corpus_path

STAGES = list(all_stages().values())


def _corpus_answers() -> list[dict[str, Any]]:
    """The ExpertQA and ALCE corpus answers and two benchmark answers as submissions."""
    def records(name: str) -> list[dict[str, Any]]:
        return json.loads(corpus_path("answers", name).read_text("utf-8"))["records"]

    found = [bench_answer(), bench_answer("e2e-shaped", seed=3, words=200, citations=10,
                                          verbatim_units=4, sources=3, chunk_chars=600)]
    found += [
        {"answer_id": f"expertqa-{n}", "query": r["question"], "text": r["answer"],
         "sources": [{"index": d["n"], "kind": "web", "url": d["url"],
                      "chunks": [{"text": d["text"]}]} for d in r["docs"]]}
        for n, r in enumerate(records("expertqa_cited_answers.json"))
    ]
    found += [
        {"answer_id": f"alce-{n}", "query": r["question"], "text": r["answer"],
         "sources": [{"index": k, "title": d["title"],
                      "chunks": [{"text": d["text"], "chunk_id": f"d{k}"}]}
                     for k, d in enumerate(r["docs"], 1)]}
        for n, r in enumerate(records("alce_demos.json"))
    ]
    return found


def _submitted(data: dict[str, Any]) -> Record:
    records, bad = answer_records([orjson.dumps(data).decode()])
    assert not bad
    return records[0]


def _message(stage: Stage, record: Record) -> Message:
    return Message(stage.input_topics[0], record.value, record.key, 0, 0, tuple(record.headers))


def _through(record: Record, stages: list[Stage] = STAGES) -> list[Record]:
    """The record each stage publishes, handing each on as the next stage's input."""
    published = []
    for stage in stages:
        (output,) = stage.handle(_message(stage, record))
        record = output_record(stage.name, output)
        published.append(record)
    return published


def _cited(data: dict[str, Any]) -> Record:
    return _through(_submitted(data), STAGES[:3])[-1]


def _resolved(data: dict[str, Any]) -> Record:
    return _through(_submitted(data), STAGES[:4])[-1]


def _dead_letter(stage: Stage, message: Message) -> Record:
    runner = StageRunner(stage, RuntimeConfig.from_env({}, retry_max_attempts=2,
                                                       retry_base_ms=1, retry_max_ms=2))
    (record,) = asyncio.run(runner._handle(message))
    assert record.topic.endswith(".dlq")
    return record


def test_the_stages_over_records_give_what_process_gives() -> None:
    for data in _corpus_answers():
        formatted = _through(_submitted(data))[-1]
        expected = process_answer(orjson.dumps(data), event_id="x")
        assert isinstance(expected, AnswerFormatted)
        value = formatted.value
        assert value[value.index(b'"data":') + 7:-1] == payload_json(expected), data["answer_id"]


def test_every_published_record_carries_its_checksum() -> None:
    """Over the value and, for a payload the next stage reads lazily, its parts header."""
    records = _through(_submitted(bench_answer()))[:-1]
    assert [PARTS_HEADER in dict(r.headers) for r in records] == [False, False, False, True]
    for record in records:
        parts = dict(record.headers).get(PARTS_HEADER, b"")
        assert (CHECKSUM_HEADER, checksum(record.value, parts)) in record.headers
        assert written_here(record.value, record.headers)
    altered = [(name, parts[1:] if name == PARTS_HEADER else value)
               for name, value in records[-1].headers]
    assert not written_here(records[-1].value, altered)


def test_each_part_is_where_its_header_says() -> None:
    """`path:start:length` of each part: the bytes there are the member's JSON."""
    resolved = _resolved(bench_answer())
    data = orjson.loads(resolved.value)["data"]
    parts = dict(resolved.headers)[PARTS_HEADER].decode().split(";")
    paths = [part.split(":")[0] for part in parts]
    assert {"answer", "scores", "extraction.sentences", "resolution.links"} <= set(paths)
    assert "extraction" not in paths and "extraction.sentence_map" not in paths
    for part in parts:
        path, start, length = part.split(":")
        member = data
        for name in path.split("."):
            member = member[name]
        assert orjson.loads(resolved.value[int(start):int(start) + int(length)]) == member


def _resigned(record: Record, parts: bytes | None) -> Record:
    """`record` with its parts header replaced (None: removed) and a matching checksum."""
    headers = [h for h in record.headers if h[0] not in (CHECKSUM_HEADER, PARTS_HEADER)]
    if parts is not None:
        headers.append((PARTS_HEADER, parts))
    headers.append((CHECKSUM_HEADER, checksum(record.value, parts or b"")))
    return replace(record, headers=headers)


@pytest.mark.parametrize("parts", [
    None,  # a record from a writer without parts: parsed whole, read lazily
    b"answer:12:40",  # offsets that do not fit the value
    b"answer:999999999:40",  # past its end
    b"answer_id:70:10",  # a member that is no part
    b"extraction.sentence_map:70:10",  # nor is this one
    b"answer;scores",  # not a part at all
])
def test_parts_that_do_not_fit_take_the_full_path_to_the_same_result(
    parts: bytes | None
) -> None:
    resolved = _resolved(bench_answer())
    expected = _through(resolved, STAGES[4:])[-1]
    record = _resigned(resolved, parts)
    assert written_here(record.value, record.headers)
    value = _through(record, STAGES[4:])[-1].value
    assert orjson.loads(value)["data"] == orjson.loads(expected.value)["data"]


def test_a_record_written_here_is_read_lazily_and_equals_the_validated_one() -> None:
    cited = _cited(bench_answer())
    message = _message(STAGES[3], cited)
    trusted = decode_input(message, AnswerCited).data
    assert type(trusted) is not AnswerCited and isinstance(trusted, AnswerCited)
    validated = AnswerCited.model_validate_json(orjson.dumps(orjson.loads(cited.value)["data"]))
    # nothing read yet: the parts are the parsed JSON they arrived as, written out unchanged
    assert payload_json(trusted) == payload_json(validated)
    assert trusted.extraction.citations == validated.extraction.citations
    assert trusted.answer == validated.answer
    assert payload_json(trusted) == payload_json(validated)


def test_the_members_the_formatting_stage_passes_on_are_never_parsed() -> None:
    """A resolved record is read with its parts cut out: a member the stage does not read
    stays the bytes it arrived as and is written out as them; one it reads is parsed then."""
    resolved = _resolved(bench_answer())
    trusted = decode_input(_message(STAGES[4], resolved), AnswerResolved).data
    validated = AnswerResolved.model_validate_json(
        orjson.dumps(orjson.loads(resolved.value)["data"]))
    written = resolved.value[resolved.value.index(b'"data":') + 7:-1]
    assert type(trusted.__dict__["scores"]) is orjson.Fragment
    assert payload_json(trusted) == written
    assert type(trusted.extraction.__dict__["segments"]) is orjson.Fragment
    assert trusted.resolution.support == validated.resolution.support
    assert type(trusted.resolution.__dict__["links"]) is orjson.Fragment
    assert payload_json(trusted) == written


def test_altered_bytes_are_validated_in_full_and_processed() -> None:
    """Bytes changed on the topic after the checksum was written: the record is validated
    in full (it is still a valid event here) and processed like any other."""
    cited = _cited(bench_answer())
    altered = cited.value.replace(b'"query":"', b'"query":"Altered: ', 1)
    assert not written_here(altered, cited.headers)
    (output,) = STAGES[3].handle(_message(STAGES[3], replace(cited, value=altered)))
    assert output.data.answer.query.startswith("Altered: ")


@pytest.mark.parametrize("checksum_of", ["original", "none"])
def test_an_invalid_record_is_a_dead_letter_with_its_reason(checksum_of: str) -> None:
    """A citation's `start` made a string, with the original checksum (altered on the
    topic) or without one (a foreign producer): a dead letter naming the field."""
    cited = _cited(bench_answer())
    body = orjson.loads(cited.value)
    body["data"]["extraction"]["citations"][0]["start"] = "nine"
    value = orjson.dumps(body)
    headers = [h for h in cited.headers if h[0] != CHECKSUM_HEADER]
    if checksum_of == "original":
        headers.append((CHECKSUM_HEADER, checksum(cited.value)))
    message = _message(STAGES[3], replace(cited, value=value, headers=headers))
    with pytest.raises(PermanentError) as caught:
        STAGES[3].handle(message)
    assert caught.value.code == "invalid_data"
    assert "$.data.extraction.citations[0].start" in str(caught.value)
    letter = dict(_dead_letter(STAGES[3], message).headers)
    assert b"citations[0].start" in letter["dlq_error_message"]


def test_a_forged_checksum_on_a_record_the_logic_cannot_read_is_a_dead_letter() -> None:
    """The checksum is not a signature: a producer that writes a matching one over a bad
    payload is read without validation, but when the stage logic fails on it the record is
    validated, and it is a dead letter with the validation's reason, not the crash's."""
    cited = _cited(bench_answer())
    body = orjson.loads(cited.value)
    body["data"]["extraction"]["citations"] = "nine"
    value = orjson.dumps(body)
    headers = [*(h for h in cited.headers if h[0] not in (CHECKSUM_HEADER, PARTS_HEADER)),
               (CHECKSUM_HEADER, checksum(value))]
    message = _message(STAGES[3], replace(cited, value=value, headers=headers))
    with pytest.raises(PermanentError) as caught:
        STAGES[3].handle(message)
    assert "$.data.extraction.citations" in str(caught.value)
    letter = dict(_dead_letter(STAGES[3], message).headers)
    assert letter["dlq_error_code"] == b"invalid_data"


def test_a_foreign_producer_on_an_internal_topic_is_validated_and_processed() -> None:
    """An event another producer wrote onto `answers.cited` (no checksum, its own source
    and id) is validated in full and processed to the same result."""
    cited = _cited(bench_answer())
    data = AnswerCited.model_validate_json(orjson.dumps(orjson.loads(cited.value)["data"]))
    event = make_event(data, subject=data.answer.answer_id, source="someone-else")
    foreign = Record(cited.topic, encode(event), cited.key, headers_for(event))
    ours = _through(cited, STAGES[3:])[-1]
    theirs = _through(foreign, STAGES[3:])[-1]
    assert orjson.loads(ours.value)["data"] == orjson.loads(theirs.value)["data"]


def test_an_older_version_is_upcast_then_processed() -> None:
    """A v0 submission is upcast at the door, then travels the stages as records written
    here to the same result as its v1 form."""
    v0 = {"answer_id": "old-1", "question": "Where?", "answer": "Paris is in France [1].",
          "sources": [{"id": 1, "content": "Paris is the capital of France."}]}
    envelope = {"specversion": "1.0", "id": "e-old", "source": "test", "subject": "old-1",
                "type": "citeflow.answer.submitted.v0", "data": v0}
    (record,), _ = answer_records([orjson.dumps(envelope).decode()], raw=True)
    formatted = orjson.loads(_through(record)[-1].value)["data"]
    assert formatted["query"] == "Where?"
    assert [c["source_index"] for c in formatted["citations"]] == [1]


def test_an_internal_record_of_an_unknown_version_is_a_dead_letter() -> None:
    """A checksum does not make an unknown version readable: it is a dead letter."""
    cited = _cited(bench_answer())
    value = cited.value.replace(b"citeflow.answer.cited.v1", b"citeflow.answer.cited.v7")
    headers = [*(h for h in cited.headers if h[0] != CHECKSUM_HEADER),
               (CHECKSUM_HEADER, checksum(value))]
    letter = dict(_dead_letter(STAGES[3], _message(STAGES[3], replace(
        cited, value=value, headers=headers))).headers)
    assert letter["dlq_error_type"] == b"PermanentError"
    assert b"v7" in letter["dlq_error_message"]


def _scored(data: dict[str, Any]) -> Record:
    return _through(_submitted(data), STAGES[:2])[-1]


def _rewritten(record: Record, change: Any) -> Record:
    """`record` with its data changed by `change`, under a checksum that matches again."""
    body = orjson.loads(record.value)
    change(body["data"])
    value = orjson.dumps(body)
    headers = [*(h for h in record.headers if h[0] not in (CHECKSUM_HEADER, PARTS_HEADER)),
               (CHECKSUM_HEADER, checksum(value))]
    return replace(record, value=value, headers=headers)


def _spoilt_sentences(data: dict[str, Any]) -> None:
    data["carried"]["sentences"][0][1] = 10**9  # past the end of the answer


@pytest.mark.parametrize("change", [
    lambda data: data.pop("carried"),  # a writer that carries nothing
    _spoilt_sentences,  # rows that do not fit the answer
])
def test_a_scored_record_without_a_fitting_extraction_is_cited_all_the_same(
    change: Any,
) -> None:
    """The citations stage extracts the citations itself when the scored event carries no
    extraction, or one that does not fit its answer: the same cited event either way."""
    scored = _scored(bench_answer())
    assert orjson.loads(scored.value)["data"]["carried"]["citations"]
    (ours,) = _through(scored, STAGES[2:3])
    (theirs,) = _through(_rewritten(scored, change), STAGES[2:3])
    assert orjson.loads(ours.value)["data"] == orjson.loads(theirs.value)["data"]


def test_carried_rows_of_the_wrong_type_from_a_foreign_producer_are_a_dead_letter() -> None:
    """A foreign producer's scored event is validated in full, its carried rows included: a
    marker that is not a string is a dead letter naming the row."""
    scored = _scored(bench_answer())
    body = orjson.loads(scored.value)
    body["data"]["carried"]["citations"][0][1] = 7
    headers = [h for h in scored.headers if h[0] != CHECKSUM_HEADER]
    message = _message(STAGES[2], replace(scored, value=orjson.dumps(body), headers=headers))
    with pytest.raises(PermanentError) as caught:
        STAGES[2].handle(message)
    assert "$.data.carried.citations[0]" in str(caught.value)
    letter = dict(_dead_letter(STAGES[2], message).headers)
    assert letter["dlq_error_code"] == b"invalid_data"
