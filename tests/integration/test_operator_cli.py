"""The operator commands against a real broker: submit, tail, dlq list/drain, replay."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from services.cli import main
from services.runtime.dead_letters import Record, dead_letter
from services.runtime.operations import answer_records
from services.runtime.stage import Message
from services.runtime.worked import outstanding
from tests.integration.conftest import TOY, Harness, small_answers

pytestmark = pytest.mark.integration


def _cli(harness: Harness, *args: str, input: str | None = None) -> str:
    result = CliRunner().invoke(
        main, [*args, "--bootstrap", harness.bootstrap, "--prefix", harness.prefix],
        input=input, catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def test_submit_then_tail_from_the_beginning(harness: Harness) -> None:
    harness.create_topics([f"{TOY}:ingest"])
    lines = "\n".join(orjson.dumps(a).decode() for a in small_answers(3, "cli"))
    _cli(harness, "submit", "-", input=lines)
    out = _cli(harness, "tail", "--topic", "answers.submitted", "--from-beginning",
               "--count", "3", "--data-only")
    assert sorted(orjson.loads(line)["answer_id"] for line in out.splitlines()) == [
        "cli-0", "cli-1", "cli-2"]


def test_submit_says_which_answers_land_under_the_default_tenant(harness: Harness) -> None:
    harness.create_topics([f"{TOY}:ingest"])
    answers = small_answers(2, "tenants")
    answers[0]["metadata"] = {"tenant": "acme"}
    answers[1]["metadata"] = {"model": "m"}
    done = _run(harness, "submit", "-",
                input="\n".join(orjson.dumps(a).decode() for a in answers))
    assert done.exit_code == 0, done.output
    assert "1 answer(s) name no metadata.tenant: stored under tenant 'default'" in (
        " ".join(done.stderr.split()))


def test_submit_reports_invalid_lines_and_fails(harness: Harness) -> None:
    harness.create_topics([f"{TOY}:ingest"])
    result = CliRunner().invoke(
        main, ["submit", "-", "--bootstrap", harness.bootstrap, "--prefix", harness.prefix],
        input='{"answer_id": "x", "text": 5}\nnot json\n',
    )
    assert result.exit_code == 1
    errors = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [e["line"] for e in errors] == [1, 2]
    assert errors[0]["answer_id"] == "x"


def _letter(answer_id: str, stage: str, topic: str, offset: int) -> Record:
    """A dead letter of a real `answer.submitted` event, as `stage` would have made it."""
    records, _ = answer_records([orjson.dumps(small_answers(1, answer_id)[0]).decode()])
    event = records[0]
    message = Message(topic, event.value, event.key, 0, offset, event.headers)
    return dead_letter(message, stage, ValueError(f"failed on {answer_id}"), 3)


def _run(harness: Harness, *args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(main, [*args, "--bootstrap", harness.bootstrap, "--prefix",
                                     harness.prefix], input=input, catch_exceptions=False)


def test_dead_letters_show_drain_and_purge(harness: Harness) -> None:
    harness.create_topics([f"{TOY}:scoring", f"{TOY}:spans"])
    harness.start(f"{TOY}:scoring")
    harness.publish([_letter("ok", "toy-scoring", "answers.accepted", 1),
                     _letter("fixed", "toy-scoring", "answers.accepted", 2),
                     _letter("poison", "toy-scoring", "answers.accepted", 3),
                     _letter("other", "toy-spans", "answers.cited", 4)])
    listed = [orjson.loads(line) for line in _cli(harness, "dlq", "list", "--json").splitlines()]
    ids = {row["key"]: row["id"] for row in listed}
    assert sorted(ids) == ["fixed-0", "ok-0", "other-0", "poison-0"]

    # show: the reason and the content together.
    shown = orjson.loads(_cli(harness, "dlq", "show", "--letter", ids["ok-0"]))
    assert shown["error_message"] == "failed on ok" and shown["stage"] == "toy-scoring"
    assert shown["value"]["data"]["answer_id"] == "ok-0"

    # A dry run re-drives nothing.
    dry = _run(harness, "dlq", "drain", "--stage", "toy-scoring", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert orjson.loads(dry.stdout.splitlines()[-1]) == {
        "selected": 3, "redriven": 0, "still_failing": 0, "pending": 0, "skipped": 1,
        "dry_run": True}
    assert harness.read("answers.accepted") == []

    # One letter, by id.
    one = _run(harness, "dlq", "drain", "--letter", ids["ok-0"])
    assert one.exit_code == 0, one.output
    assert orjson.loads(one.stdout.splitlines()[-1])["redriven"] == 1
    assert "re-driven 1/1" in one.stderr

    # A filter: one is fixed, one still fails (its new letter is the one left to work).
    some = _run(harness, "dlq", "drain", "--stage", "toy-scoring")
    assert some.exit_code == 1, some.output
    report = orjson.loads(some.stdout.splitlines()[-1])
    assert report == {"selected": 2, "redriven": 2, "still_failing": 1, "pending": 0,
                      "skipped": 1, "dry_run": False}
    harness.wait_for_keys("answers.scored", {"ok-0", "fixed-0"})
    left = [orjson.loads(line) for line in _cli(harness, "dlq", "list", "--json").splitlines()]
    assert sorted(row["key"] for row in left) == ["other-0", "poison-0"]
    assert asyncio.run(outstanding(harness.config, ["answers.accepted.dlq",
                                                    "answers.cited.dlq"])) == {
        "toy-scoring": 1, "toy-spans": 1}

    # Nothing selected: an error, not a silent success.
    assert _run(harness, "dlq", "drain", "--key", "no-such-answer").exit_code == 1
    assert _run(harness, "dlq", "drain").exit_code == 2

    # purge asks first; `n` keeps the letter.
    assert _run(harness, "dlq", "purge", "--stage", "toy-scoring", input="n\n").exit_code == 1
    assert len(_cli(harness, "dlq", "list", "--json").splitlines()) == 2
    purged = _run(harness, "dlq", "purge", "--stage", "toy-scoring", "--yes")
    assert orjson.loads(purged.stdout) == {"purged": 1, "skipped": 1}
    left = [orjson.loads(line) for line in _cli(harness, "dlq", "list", "--json").splitlines()]
    assert [row["key"] for row in left] == ["other-0"]
