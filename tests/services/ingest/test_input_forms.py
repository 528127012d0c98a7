"""Input forms (one object, an array, JSON Lines), source kinds inferred only where one fits,
and rejections that say what was expected with an example."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from schemas.answers import AnswerRejected
from services.cli import main
from services.ingest.answers import admit_data
from services.ingest.input_forms import InputFormError, split_records

ANSWER: dict[str, Any] = {
    "answer_id": "a-1", "text": "The sky is blue [1].",
    "sources": [{"index": 1, "kind": "web", "url": "https://example.org/sky",
                 "chunks": [{"text": "On a clear day the sky is blue."}]}]}


def _with(answer_id: str) -> dict[str, Any]:
    return {**ANSWER, "answer_id": answer_id}


def test_json_lines_keep_their_bytes_and_line_numbers() -> None:
    data = b'{"a": 1}\n\n{"b": 2}\r\n'
    assert [(r.number, r.raw, r.unit) for r in split_records(data)] == [
        (1, b'{"a": 1}', "line"), (3, b'{"b": 2}', "line")]


def test_a_bad_json_line_is_kept_for_its_own_rejection() -> None:
    records = split_records(b'{"a": 1}\n{not json\n')
    assert [r.raw for r in records] == [b'{"a": 1}', b"{not json"]


def test_one_pretty_printed_object_is_one_record() -> None:
    text = json.dumps(ANSWER, indent=2)
    records = split_records(text.encode())
    assert len(records) == 1 and json.loads(records[0].raw) == ANSWER


def test_pretty_printed_objects_one_after_another() -> None:
    first = json.dumps(_with("a-1"), indent=2)
    data = (first + "\n\n" + json.dumps(_with("a-2"), indent=4)).encode()
    records = split_records(data)
    assert [json.loads(r.raw)["answer_id"] for r in records] == ["a-1", "a-2"]
    assert [r.number for r in records] == [1, first.count("\n") + 3]


def test_an_array_is_one_record_per_item() -> None:
    records = split_records(b"\xef\xbb\xbf" + orjson.dumps([_with("a-1"), _with("a-2")]))
    assert [(r.position, orjson.loads(r.raw)["answer_id"]) for r in records] == [
        ("item 1", "a-1"), ("item 2", "a-2")]


@pytest.mark.parametrize("data", [b'[{"a": 1},', b'{\n "a": \n}', b'{\n "a": 1\n}\n{\n oops'])
def test_none_of_the_forms_names_them(data: bytes) -> None:
    with pytest.raises(InputFormError, match="JSON array of objects, or JSON Lines"):
        split_records(data)


def test_blank_input_has_no_records() -> None:
    assert split_records(b" \n\n") == []


def _admit(answer: dict[str, Any]) -> Any:
    return admit_data(orjson.dumps(answer), event_id="e1")


@pytest.mark.parametrize(("source", "kind"), [
    ({"url": "https://example.org/a"}, "web"),
    ({"doc_id": "moby-dick"}, "document"),
    ({}, "document"),
    ({"url": "https://example.org/a", "kind": "document"}, "document"),
])
def test_kind_is_inferred_only_where_one_fits(source: dict[str, Any], kind: str) -> None:
    answer = {**ANSWER, "sources": [{"index": 1, "chunks": [{"text": "x"}], **source}]}
    result = _admit(answer)
    assert not isinstance(result, AnswerRejected), result
    assert result.answer.sources[0].kind == kind


@pytest.mark.parametrize("source", [
    {"url": "https://example.org/a", "doc_id": "a"},
    {"url": "https://example.org/a.pdf", "format": "pdf"},
])
def test_an_ambiguous_source_names_the_choices(source: dict[str, Any]) -> None:
    answer = {**ANSWER, "sources": [{"index": 1, **source}]}
    result = _admit(answer)
    assert isinstance(result, AnswerRejected)
    assert result.path == "$.sources[0].kind" and result.code == "missing_field"
    assert '"kind": "web"' in result.message and '"kind": "document"' in result.message


@pytest.mark.parametrize(("change", "path", "example"), [
    ({"sources": [{"kind": "web", "url": "https://e.org"}]}, "$.sources[0].index", '"index": 1'),
    ({"sources": [{"index": 1, "chunks": [{"page": 2}]}]}, "$.sources[0].chunks[0].text",
     '"text": "On a clear day'),
    ({"text": 12}, "$.text", '"text": "The sky is blue [1]."'),
    ({"sources": [{"index": 1, "kind": "book"}]}, "$.sources[0].kind", '"kind": "web"'),
])
def test_a_rejection_names_the_field_what_was_expected_and_an_example(
        change: dict[str, Any], path: str, example: str) -> None:
    result = _admit({**ANSWER, **change})
    assert isinstance(result, AnswerRejected)
    error = next(e for e in result.errors if e.path == path)
    assert "expected" in error.message and example in error.message, error.message


def test_process_reads_pretty_printed_json_and_arrays() -> None:
    runner = CliRunner()
    pretty = runner.invoke(main, ["process", "-"], input=json.dumps(ANSWER, indent=2))
    assert pretty.exit_code == 0, pretty.output
    array = runner.invoke(main, ["process", "-"],
                          input=json.dumps([_with("a-1"), _with("a-2")], indent=2))
    assert array.exit_code == 0, array.output
    ids = [json.loads(line)["answer_id"] for line in array.stdout.splitlines()
           if line.startswith("{")]
    assert ids == ["a-1", "a-2"]


def test_process_names_the_forms_for_unreadable_input() -> None:
    result = CliRunner().invoke(main, ["process", "-"], input='{\n  "answer_id": \n}')
    assert result.exit_code == 1
    assert "Error: line 3" in result.output and "JSON Lines" in result.output


def test_submit_reads_the_same_forms_and_names_where_an_answer_starts() -> None:
    pretty = json.dumps(_with("a-1"), indent=2) + "\n" + json.dumps(
        {**_with("a-2"), "sources": [{"kind": "web"}]}, indent=2)
    result = CliRunner().invoke(main, ["submit", "-", "--bootstrap", "127.0.0.1:1"],
                                input=pretty)
    assert result.exit_code == 1
    bad = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [(b["line"], b["answer_id"]) for b in bad] == [
        (json.dumps(_with("a-1"), indent=2).count("\n") + 2, "a-2")]
