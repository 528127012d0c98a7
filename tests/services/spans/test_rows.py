"""The spans stage's reading of list fields as field tables: JSON objects as written, the
defaults of the fields an older writer's objects lack, a validated record's models."""

from __future__ import annotations

import orjson

from schemas.citations import AnswerCited
from schemas.envelope import payload_json
from schemas.trusted import build
from services.bench.toy import real_events
from services.spans.rows import rows


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


def test_members_of_an_older_writer_get_the_defaults_of_the_fields_they_lack() -> None:
    written = orjson.loads(payload_json(_cited()))
    for citation in written["extraction"]["citations"]:
        del citation["page"], citation["problem"]
    lazy = build(AnswerCited, written)
    read = rows(lazy.extraction, "citations")
    assert read and all(type(r) is dict for r in read)
    assert all(r["page"] is None and r["problem"] is None for r in read)
