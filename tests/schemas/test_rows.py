"""Reading an event's list fields as their JSON: a lazily rebuilt record's JSON objects, the
bytes a record with parts keeps parsed (the field written out again as those bytes), the
defaults of the fields an older writer's objects lack, a validated record's models."""

from __future__ import annotations

import orjson

from schemas.citations import AnswerCited
from schemas.envelope import Event, payload_json
from schemas.rows import members, rows
from schemas.spans import AnswerResolved
from schemas.trusted import (
    build,
    decode_written_here,
    encode_written,
    passed_on,
    trusted_parts,
)
from services.bench.toy import real_events


def _resolved() -> AnswerResolved:
    return next(e for e in real_events() if isinstance(e, AnswerResolved))


def _cited() -> AnswerCited:
    return next(e for e in real_events() if isinstance(e, AnswerCited))


def test_a_rebuilt_record_gives_its_json_objects_and_a_validated_one_its_models() -> None:
    cited = _cited()
    written = orjson.loads(payload_json(cited))
    lazy = build(AnswerCited, orjson.loads(payload_json(cited)))
    from_json = rows(lazy.extraction, "citations")
    from_models = rows(AnswerCited.model_validate(written).extraction, "citations")
    assert from_json == written["extraction"]["citations"]
    assert all(type(r) is dict for r in from_json)
    assert [dict(r, span=None) for r in from_json] == [
        dict(r, span=None) for r in from_models]
    from_json.clear()  # (a list of their own: the record's field keeps its members)
    assert rows(lazy.extraction, "citations") == written["extraction"]["citations"]


def _read_back(resolved: AnswerResolved) -> AnswerResolved:
    """`resolved` written with parts and read back as the formatting stage reads it."""
    event = Event("e1", "test", "citeflow.answer.resolved.v1", "a1", "", resolved)
    value, headers = encode_written(event)
    parts = trusted_parts(value, headers)
    assert parts  # (the resolved event is written with parts)
    decoded = decode_written_here(value, AnswerResolved, parts)
    assert decoded is not None
    return decoded.data  # type: ignore[return-value]


def test_a_record_with_parts_gives_its_json_and_keeps_the_bytes_to_write() -> None:
    resolved = _resolved()
    written = orjson.loads(payload_json(resolved))
    lazy = _read_back(resolved)
    assert rows(lazy.extraction, "citations") == written["extraction"]["citations"]
    assert members(lazy.resolution, "support") == written["resolution"]["support"]
    assert all(type(r) is dict for r in rows(lazy.resolution, "units"))
    kept = passed_on(lazy.resolution, "units")
    assert type(kept) is orjson.Fragment  # not rebuilt by the reading
    assert orjson.loads(orjson.dumps(kept)) == written["resolution"]["units"]


def test_a_validated_record_gives_its_models() -> None:
    resolved = _resolved()
    validated = AnswerResolved.model_validate(orjson.loads(payload_json(resolved)))
    support = members(validated.resolution, "support")
    assert support == validated.resolution.support
    assert any(entry is not None for entry in support)
    assert rows(validated.extraction, "citations") == [
        citation.__dict__ for citation in validated.extraction.citations
    ]


def test_members_of_an_older_writer_get_the_defaults_of_the_fields_they_lack() -> None:
    written = orjson.loads(payload_json(_resolved()))
    for citation in written["extraction"]["citations"]:
        del citation["page"], citation["problem"]
    event = decode_written_here(
        orjson.dumps({"specversion": "1.0", "id": "e1", "source": "test", "subject": "a1",
                      "type": "citeflow.answer.resolved.v1", "data": written}),
        AnswerResolved,
    )
    assert event is not None
    read = rows(event.data.extraction, "citations")  # type: ignore[attr-defined]
    assert read and all(type(r) is dict for r in read)
    assert all(r["page"] is None and r["problem"] is None for r in read)
