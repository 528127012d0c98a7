"""POST /v1/answers:batch reads a JSON array, JSON Lines or one (pretty-printed) object;
anything else is one 400 naming the forms."""

from __future__ import annotations

import json

import orjson

from tests.services.gateway.conftest import Gw, answer


async def test_a_json_array_is_one_answer_per_item(gw: Gw) -> None:
    content = orjson.dumps([answer("arr-1"), answer("arr-2"), 7])
    r = await gw.client.post("/v1/answers:batch", content=content, headers=gw.auth())
    assert r.status_code == 200, r.text
    doc = r.json()
    assert (doc["accepted"], doc["refused"]) == (2, 1)
    assert [item["line"] for item in doc["results"]] == [1, 2, 3]
    assert doc["results"][2]["problem"]["code"] == "not_an_object"
    assert sorted(a.answer_id for a, _, _ in gw.producer.sent) == ["arr-1", "arr-2"]


async def test_pretty_printed_objects_are_answers(gw: Gw) -> None:
    first = json.dumps(answer("pretty-1"), indent=2)
    content = (first + "\n" + json.dumps(answer("pretty-2"), indent=2)).encode()
    r = await gw.client.post("/v1/answers:batch", content=content, headers=gw.auth())
    assert r.status_code == 200, r.text
    assert r.json()["accepted"] == 2
    # each answer is numbered by the line it starts on
    assert [item["line"] for item in r.json()["results"]] == [1, first.count("\n") + 2]


async def test_none_of_the_forms_is_a_400_naming_them(gw: Gw) -> None:
    content = b'{\n  "answer_id": "broken",\n  "text": \n}'
    r = await gw.client.post("/v1/answers:batch", content=content, headers=gw.auth())
    assert r.status_code == 400
    problem = r.json()
    assert problem["code"] == "invalid_batch"
    assert "line 4" in problem["detail"] and "JSON array" in problem["detail"]
    assert "JSON Lines" in problem["detail"]
    assert not gw.producer.sent
