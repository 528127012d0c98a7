"""docs/events.md is what `citeflow schemas docs` writes from schemas/json/."""

from __future__ import annotations

import json
from pathlib import Path

from services.cli.events_doc import EVENTS_DOC, render
from schemas.export import JSON_DIR


def test_events_doc_matches_the_committed_schemas() -> None:
    assert EVENTS_DOC.read_text(encoding="utf-8") == render(), (
        "docs/events.md is out of date: run `citeflow schemas docs`")


def test_every_event_and_field_is_documented() -> None:
    text = EVENTS_DOC.read_text(encoding="utf-8")
    for path in JSON_DIR.glob("*.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert f"## {path.name.rsplit('.v', 1)[0]}\n" in text
        for field in schema.get("properties", {}):
            assert f"| `{field}` |" in text


def test_a_changed_schema_changes_the_doc(tmp_path: Path) -> None:
    for path in JSON_DIR.glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    target = tmp_path / "answer.submitted.v1.json"
    schema = json.loads(target.read_text(encoding="utf-8"))
    schema["properties"]["brand_new_field"] = {"type": "string"}
    target.write_text(json.dumps(schema), encoding="utf-8")
    assert "`brand_new_field`" in render(tmp_path)
    assert render(tmp_path) != render()
