"""`citeflow topics create|check` against a real broker: the definition applied, every
difference of a topic made otherwise named, and the exit status saying so."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka.admin import NewTopic
from click.testing import CliRunner

from services.cli import main
from services.runtime.kafka import make_admin
from services.runtime.topic_specs import MAX_MESSAGE_BYTES
from tests.integration.conftest import Harness

pytestmark = pytest.mark.integration


def _topics(harness: Harness, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["topics", *args, "--bootstrap", harness.bootstrap, "--prefix", harness.prefix,
               "--stage", "ingest"])
    return result.exit_code, result.output


async def _make_topic(harness: Harness, name: str, partitions: int,
                      configs: dict[str, str]) -> None:
    admin = make_admin(harness.config)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(harness.prefix + name, partitions, 1,
                                            topic_configs=configs)])
    finally:
        await admin.close()


def test_create_applies_the_definition_and_check_finds_nothing(harness: Harness) -> None:
    code, out = _topics(harness, "create", "--partitions", "3")
    assert code == 0, out
    assert f"{harness.prefix}answers.submitted.dlq" in out and "differs" not in out
    code, out = _topics(harness, "check", "--partitions", "3")
    assert code == 0 and "every topic matches the definition" in out, out
    code, out = _topics(harness, "check", "--partitions", "3", "--replication-factor", "3")
    assert code == 1
    assert (f"{harness.prefix}answers.scored: replication factor is 1, the definition says 3"
            in out)
    assert f"{harness.prefix}answers.scored: min.insync.replicas is 1, the definition says 2" in out


def test_check_names_every_difference_of_a_topic_made_otherwise(harness: Harness) -> None:
    asyncio.run(_make_topic(harness, "answers.accepted", 2,
                            {"retention.ms": "1000", "cleanup.policy": "compact"}))
    code, out = _topics(harness, "create")
    assert code == 0, out
    accepted = f"{harness.prefix}answers.accepted"
    assert f"differs: {accepted}: partitions is 2, the definition says 4" in out
    code, out = _topics(harness, "check")
    assert code == 1
    lines = [line for line in out.splitlines() if line.startswith(accepted + ":")]
    assert lines == [
        f"{accepted}: partitions is 2, the definition says 4",
        f"{accepted}: cleanup.policy is compact, the definition says delete",
        f"{accepted}: retention.ms is 1000, the definition says 604800000",
        f"{accepted}: min.insync.replicas is unset, the definition says 1",
        f"{accepted}: max.message.bytes is unset, the definition says {MAX_MESSAGE_BYTES}",
    ]
    assert out.strip().endswith(f"Error: 5 difference(s) on {harness.bootstrap}")
