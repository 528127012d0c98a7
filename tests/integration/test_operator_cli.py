"""The operator commands against a real broker: submit, tail, dlq list/drain, replay."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from services.cli import main
from services.runtime.dead_letters import dead_letter
from services.runtime.stage import Message
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


def test_dlq_list_drain_once_and_replay(harness: Harness) -> None:
    harness.create_topics([f"{TOY}:scoring"])
    letters = [
        dead_letter(Message("answers.accepted", f"value-{i}".encode(), f"k{i}".encode(), 0, i),
                    "scoring", ValueError(f"bad {i}"), 3)
        for i in range(3)
    ]
    harness.publish(letters)
    listed = [orjson.loads(line) for line in _cli(harness, "dlq", "list", "--json").splitlines()]
    assert sorted(row["key"] for row in listed) == ["k0", "k1", "k2"]
    assert {row["error_message"] for row in listed} == {"bad 0", "bad 1", "bad 2"}
    assert {row["original_topic"] for row in listed} == {"answers.accepted"}

    assert _cli(harness, "dlq", "drain", "answers.accepted.dlq").split() == [
        "3", "answers.accepted"]
    assert _cli(harness, "dlq", "drain", "answers.accepted.dlq").strip() == ""
    drained = harness.read("answers.accepted")
    assert sorted(r.value for r in drained) == [b"value-0", b"value-1", b"value-2"]
    assert all(not k.startswith("dlq_") for r in drained for k, _ in r.headers)

    partition = drained[0].partition
    _cli(harness, "replay", "answers.accepted", "--partition", str(partition),
         "--to", "answers.scored")
    replayed = harness.read("answers.scored")
    assert sorted(r.value for r in replayed) == sorted(
        r.value for r in drained if r.partition == partition)
