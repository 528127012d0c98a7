"""`Support` gained `missing_words` and `atoms` compatibly: an entry written before them still
reads (with both empty, its `missing` strings as they were), and a new entry round-trips."""

from __future__ import annotations

import json

from schemas.export import JSON_DIR
from schemas.spans import Support


def test_an_older_support_entry_still_reads() -> None:
    old = {"verdict": "partial", "score": 0.5, "link": 0, "missing": ["make", "fahrt"],
           "conflicts": [], "judge": "lexical"}
    support = Support.model_validate(old)
    assert support.missing == ["make", "fahrt"]
    assert support.missing_words == [] and support.atoms == []


def test_a_new_support_entry_round_trips() -> None:
    new = {"verdict": "partial", "score": 0.5, "judge": "lexical", "missing": ["made"],
           "missing_words": [{"text": "made", "start": 7, "end": 11, "start_utf16": 7,
                              "end_utf16": 11}],
           "atoms": [{"text": "Arnold made history", "start": 0, "end": 19,
                      "verdict": "unsupported", "judge": "lexical"}]}
    support = Support.model_validate(new)
    assert Support.model_validate_json(support.model_dump_json()) == support


def test_the_exported_schemas_hold_the_new_fields_as_optional() -> None:
    for name in ("answer.resolved.v1.json", "answer.formatted.v1.json"):
        schema = json.loads((JSON_DIR / name).read_text("utf-8"))
        support = schema["$defs"]["Support"]
        assert {"missing_words", "atoms"} <= set(support["properties"])
        assert "missing_words" not in support.get("required", [])
        assert "atoms" not in support.get("required", [])
