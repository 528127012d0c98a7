"""The stage runtime on a real broker: flow, rejections, kills, poison, replicas, SIGTERM."""

from __future__ import annotations

import asyncio
import base64
import signal
from typing import Any

import orjson
import pytest

from schemas.answers import AnswerSubmitted
from schemas.envelope import encode, make_event
from services.runtime.dead_letters import Record, read_dead_letter
from services.runtime.kafka import make_consumer
from services.runtime.registry import load_stage
from services.runtime.topic_io import partitions_of
from tests.integration.conftest import TOY, Harness, small_answers

pytestmark = pytest.mark.integration


def _keys(answers: list[dict[str, Any]]) -> set[str]:
    return {a["answer_id"] for a in answers}


def _committed(harness: Harness, group: str, topic: str) -> dict[tuple[str, int], int]:
    """The group's committed offsets on a (logical) topic, partitions without one left out."""

    async def go() -> dict[tuple[str, int], int]:
        consumer = make_consumer(harness.config, group_id=group)
        await consumer.start()
        try:
            tps = await partitions_of(consumer, harness.prefix + topic)
            found = {(tp.topic, tp.partition): await consumer.committed(tp) for tp in tps}
        finally:
            await consumer.stop()
        return {tp: offset for tp, offset in found.items() if offset is not None}

    return asyncio.run(go())


def _ends(harness: Harness, topic: str) -> dict[tuple[str, int], int]:
    ends: dict[tuple[str, int], int] = {}
    for record in harness.read(topic):
        key = (record.topic, record.partition)
        ends[key] = max(ends.get(key, 0), record.offset + 1)
    return ends


def test_200_answers_through_five_stage_processes(
    harness: Harness, pipeline_specs: list[str]
) -> None:
    harness.create_topics(pipeline_specs)
    for spec in pipeline_specs:
        harness.start(spec)
    answers = small_answers(200)
    harness.submit(answers)
    records = harness.wait_for_keys("answers.formatted", _keys(answers))
    results = {r.key.decode(): orjson.loads(r.value) for r in records}
    assert set(results) == _keys(answers)
    for answer_id, event in results.items():
        assert event["subject"] == answer_id
        assert event["type"] == "citeflow.answer.formatted.v1"
        assert event["data"]["answer_id"] == answer_id


def test_bad_messages_land_on_rejected_with_reasons(
    harness: Harness, pipeline_specs: list[str]
) -> None:
    ingest = pipeline_specs[0]
    harness.create_topics([ingest])
    harness.start(ingest)
    good = small_answers(1, "good")[0]
    envelope = orjson.loads(encode(make_event(AnswerSubmitted.model_validate(good),
                                              subject="bad-version", source="test")))
    envelope["type"] = "citeflow.answer.submitted.v99"
    wrong_types = dict(envelope, type="citeflow.answer.submitted.v1", subject="bad-types")
    wrong_types["data"] = dict(good, answer_id="bad-types", sources="not a list")
    bad = {
        b"bad-json": b'{"specversion": "1.0", "id": ',
        b"bad-utf8": b'{"data": "\xff\xfe"}',
        b"bad-version": orjson.dumps(envelope),
        b"bad-types": orjson.dumps(wrong_types),
    }
    harness.publish([Record("answers.submitted", v, k, []) for k, v in bad.items()])
    harness.submit([good])
    harness.wait_for_keys("answers.accepted", {"good-0"})
    harness.wait_for(lambda: len(harness.read("answers.rejected")) >= len(bad),
                     "all rejections")
    rejections = [orjson.loads(r.value)["data"] for r in harness.read("answers.rejected")]
    by_original = {base64.b64decode(r["original_base64"]): r for r in rejections}
    assert set(by_original) == set(bad.values())
    codes = {key: by_original[value]["code"] for key, value in bad.items()}
    assert codes[b"bad-json"] == "invalid_json"
    assert codes[b"bad-utf8"] == "invalid_utf8"
    assert codes[b"bad-version"] == "unknown_version"
    assert codes[b"bad-types"] not in {"invalid_json", "invalid_utf8", "unknown_version"}
    for rejection in rejections:
        assert rejection["message"] and rejection["path"].startswith("$")
    assert by_original[bad[b"bad-types"]]["answer_id"] == "bad-types"
    assert harness.processes[0].poll() is None  # bad input never crashes a stage


def test_bad_input_on_every_internal_topic_is_dead_lettered_with_its_reason(
    harness: Harness, pipeline_specs: list[str]
) -> None:
    # On every topic a stage reads after ingest, unreadable bytes, a non-event, an
    # event of another type and an unknown version each become a dead letter that keeps the
    # original bytes and names the reason; every stage keeps running and good answers pass.
    harness.create_topics(pipeline_specs)
    for spec in pipeline_specs:
        harness.start(spec)
    good = small_answers(1, "good")[0]
    other_type = encode(make_event(AnswerSubmitted.model_validate(good), subject="x",
                                   source="test"))
    expected: dict[str, dict[bytes, str]] = {}
    records = []
    for spec in pipeline_specs[1:]:
        logical = load_stage(spec).input_topics[0]
        unknown = orjson.loads(other_type)
        unknown["type"] = f"citeflow.answer.{logical.removeprefix('answers.')}.v99"
        bad = {
            b"invalid_utf8": b'{"data": "\xff\xfe"}',
            b"not_an_envelope": b'{"hello": "world"}',
            b"unexpected_type": other_type,
            b"unknown_version": orjson.dumps(unknown),
        }  # keyed by the error code each must get
        expected[logical] = bad
        records += [Record(logical, value, key, []) for key, value in bad.items()]
    harness.publish(records)
    harness.submit([good])
    harness.wait_for_keys("answers.formatted", {"good-0"})
    for topic, bad in expected.items():
        count = len(bad)
        harness.wait_for(lambda t=topic, n=count: len(harness.read(f"{t}.dlq")) >= n,
                         f"the dead letters of {topic}")
        letters = {r.key: r for r in harness.read(f"{topic}.dlq")}
        assert set(letters) == set(bad), topic
        for key, value in bad.items():
            assert letters[key].value == value
            info = read_dead_letter(letters[key].headers)
            assert info is not None and info.original_topic == topic
            assert info.error_type == "PermanentError" and info.error_message
            assert info.error_code == key.decode(), (topic, info.error_message)
    assert all(p.poll() is None for p in harness.processes)


def test_sigkill_any_stage_mid_stream_repeatedly_loses_nothing(
    harness: Harness, pipeline_specs: list[str]
) -> None:
    # Every stage in turn is killed with SIGKILL while it works through a chunk,
    # and restarted; every answer still yields a result, and duplicates are recognisable.
    harness.create_topics(pipeline_specs)
    running = {spec: harness.start(spec) for spec in pipeline_specs}
    answers = small_answers(200, "kill")
    chunk = len(answers) // len(pipeline_specs)
    for round_, victim_spec in enumerate(pipeline_specs):
        victim_output = load_stage(victim_spec).output_topics[0]
        before = len(harness.read(victim_output))
        harness.submit(answers[round_ * chunk : (round_ + 1) * chunk])
        harness.wait_for(lambda t=victim_output, n=before: len(harness.read(t)) > n,
                         f"{victim_spec} to make progress")
        running[victim_spec].send_signal(signal.SIGKILL)
        running[victim_spec].wait(timeout=10)
        running[victim_spec] = harness.start(victim_spec)
    records = harness.wait_for_keys("answers.formatted", _keys(answers))
    assert {r.key.decode() for r in records} == _keys(answers)
    # Work done again (here: all of it, by a replica of the last stage in a new group, as a
    # replay does) is recognisable: the same input gives the same event id.
    harness.start(pipeline_specs[-1], name="replay", CITEFLOW_GROUP_ID="replay")
    harness.wait_for(
        lambda: len(harness.read("answers.formatted")) >= len(records) + len(answers),
        "the replayed results",
    )
    ids: dict[bytes, set[bytes]] = {}
    for record in harness.read("answers.formatted"):
        ids.setdefault(record.key, set()).add(dict(record.headers)["ce_id"])
    assert set(ids) == {key.encode() for key in _keys(answers)}
    assert all(len(found) == 1 for found in ids.values())


def test_poison_goes_to_dead_letter_topic_while_the_rest_continue(harness: Harness) -> None:
    specs = [f"{TOY}:ingest", f"{TOY}:scoring"]
    harness.create_topics(specs)
    for spec in specs:
        harness.start(spec)
    answers = small_answers(20, "ok")
    answers.insert(10, small_answers(1, "poison")[0])
    answers.insert(5, small_answers(1, "flaky")[0])
    harness.submit(answers)
    unreadable = Record("answers.accepted", b"\xff not an event", b"garbage-1", [("x", b"1")])
    harness.publish([unreadable])
    passing = _keys(answers) - {"poison-0"}
    harness.wait_for_keys("answers.scored", passing)
    harness.wait_for(lambda: len(harness.read("answers.accepted.dlq")) >= 2, "two dead letters")
    letters = {r.key.decode(): r for r in harness.read("answers.accepted.dlq")}
    assert set(letters) == {"poison-0", "garbage-1"}
    poison = read_dead_letter(letters["poison-0"].headers)
    assert poison is not None
    assert (poison.stage, poison.error_type, poison.attempts) == ("toy-scoring", "ValueError", 3)
    assert "poison answer poison-0" in poison.error_message
    assert poison.original_topic == "answers.accepted"
    original = next(r for r in harness.read("answers.accepted")
                    if r.partition == poison.original_partition
                    and r.offset == poison.original_offset)
    assert original.key == b"poison-0" and original.value == letters["poison-0"].value
    garbage = read_dead_letter(letters["garbage-1"].headers)
    assert garbage is not None and garbage.attempts == 1
    assert garbage.error_type == "PermanentError" and garbage.error_code == "invalid_utf8"
    assert letters["garbage-1"].value == unreadable.value
    assert ("x", b"1") in letters["garbage-1"].headers
    assert "poison-0" not in {r.key.decode() for r in harness.read("answers.scored")}
    assert all(p.poll() is None for p in harness.processes)


def test_two_replicas_share_partitions_and_one_leaving_loses_nothing(
    harness: Harness, pipeline_specs: list[str]
) -> None:
    ingest = pipeline_specs[0]
    harness.create_topics([ingest])
    first = harness.start(ingest, "replica-a", TOY_DELAY_MS="5")
    harness.start(ingest, "replica-b", TOY_DELAY_MS="5")

    def assigned(name: str) -> set[str]:
        events = [e for e in harness.log_events(name) if e.get("event") == "partitions assigned"]
        owned = events[-1]["partitions"] if events else []
        return {p for p in owned if p.startswith(f"{harness.prefix}answers.submitted:")}

    def shared() -> bool:
        a, b = assigned("replica-a"), assigned("replica-b")
        return bool(a) and bool(b) and not a & b and len(a | b) == 4

    harness.wait_for(shared, "both replicas to own answers.submitted partitions")
    answers = small_answers(200, "rep")
    harness.submit(answers[:100])
    harness.wait_for(lambda: len(harness.read("answers.accepted")) >= 20, "some outputs")
    first.send_signal(signal.SIGTERM)
    harness.submit(answers[100:])
    assert first.wait(timeout=60) == 0
    records = harness.wait_for_keys("answers.accepted", _keys(answers))
    assert {r.key.decode() for r in records} == _keys(answers)
    sources = {orjson.loads(r.value)["source"] for r in records}
    assert len(sources) == 1  # the same stage, whichever replica produced it


def test_sigterm_finishes_the_batch_commits_and_exits(
    harness: Harness, pipeline_specs: list[str]
) -> None:
    ingest = pipeline_specs[0]
    harness.create_topics([ingest])
    process = harness.start(ingest, "first", TOY_DELAY_MS="5")
    answers = small_answers(120, "term")
    harness.submit(answers)
    harness.wait_for(lambda: len(harness.read("answers.accepted")) >= 10, "processing started")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    assert any(e.get("event") == "stopped" for e in harness.log_events("first"))
    done = len(harness.read("answers.accepted"))
    group = f"{harness.prefix}citeflow-{'toy-' if ':' in ingest else ''}ingest"
    committed = _committed(harness, group, "answers.submitted")
    # Everything finished before the exit is committed: committed offsets count exactly
    # the records whose outputs are on the output topic (nothing half-done, nothing lost).
    assert sum(committed.values()) == done
    harness.start(ingest, "second")
    harness.wait_for_keys("answers.accepted", _keys(answers))
    outputs = harness.read("answers.accepted")
    # A clean stop re-delivers nothing: every answer was produced exactly once.
    assert len(outputs) == len(answers)
    assert _committed(harness, group, "answers.submitted") == _ends(harness, "answers.submitted")
