"""Committed JSON Schemas: in sync with the models, and never changed incompatibly
without a new major version."""

from __future__ import annotations

import copy

import orjson
import pytest

from schemas.compat import incompatibilities
from schemas.export import JSON_DIR, current_schemas, render

CURRENT = current_schemas()


@pytest.mark.parametrize("name", sorted(CURRENT))
def test_committed_schema_is_compatible_and_current(name: str) -> None:
    path = JSON_DIR / name
    assert path.exists(), f"{name} is not committed: run `citeflow schemas export`"
    committed = orjson.loads(path.read_bytes())
    problems = incompatibilities(committed, CURRENT[name])
    assert not problems, (
        f"{name} changed incompatibly; bump the event's major version and add an upcaster: "
        + "; ".join(problems)
    )
    assert path.read_bytes() == render(CURRENT[name]), (
        f"{name} is out of date (compatible change): run `citeflow schemas export`"
    )


def test_no_committed_schema_lost_its_model() -> None:
    committed = {p.name for p in JSON_DIR.glob("*.json")}
    assert committed <= set(CURRENT), f"schemas without a model: {committed - set(CURRENT)}"


def _submitted() -> dict:
    return copy.deepcopy(CURRENT["answer.submitted.v1.json"])


def test_checker_accepts_an_additive_change() -> None:
    new = _submitted()
    new["properties"]["extra"] = {"type": "string"}
    assert incompatibilities(_submitted(), new) == []


def test_checker_flags_a_removed_property() -> None:
    new = _submitted()
    del new["properties"]["query"]
    assert any("query: property removed" in p for p in incompatibilities(_submitted(), new))


def test_checker_flags_a_new_required_property() -> None:
    new = _submitted()
    new["properties"]["tenant"] = {"type": "string"}
    new["required"] = [*new["required"], "tenant"]
    assert any("tenant: new required" in p for p in incompatibilities(_submitted(), new))


def test_checker_flags_a_retyped_nested_property() -> None:
    new = _submitted()
    new["$defs"]["Source"]["properties"]["index"] = {"type": "string"}
    assert any("index: type changed" in p for p in incompatibilities(_submitted(), new))


def test_checker_flags_a_removed_enum_value() -> None:
    new = _submitted()
    kind = new["$defs"]["Source"]["properties"]["kind"]
    kind["enum"] = ["document"]
    assert any("enum values removed" in p for p in incompatibilities(_submitted(), new))
