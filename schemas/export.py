"""Export the JSON Schema of every current event version (committed under schemas/json/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from schemas.registry import EVENT_TYPES, EventType

JSON_DIR = Path(__file__).resolve().parent / "json"


def schema_file_name(etype: EventType) -> str:
    """`<name>.v<N>.json`, one file per event name and major version."""
    return f"{etype.name}.v{etype.version}.json"


def event_schema(etype: EventType) -> dict[str, Any]:
    """The JSON Schema of one event type's `data`, with its CloudEvents type as `$id`."""
    schema = etype.model.model_json_schema(mode="validation")
    return {"$id": etype.type, "$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def render(schema: dict[str, Any]) -> bytes:
    """Stable bytes for a schema (sorted keys, indented, trailing newline)."""
    return orjson.dumps(schema, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def current_schemas() -> dict[str, dict[str, Any]]:
    """File name to schema, for every registered event type."""
    return {schema_file_name(e): event_schema(e) for e in EVENT_TYPES.values()}


def export(directory: Path = JSON_DIR) -> list[Path]:
    """Write every current schema into `directory`; returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in current_schemas().items():
        path = directory / name
        path.write_bytes(render(schema))
        written.append(path)
    return written
