"""`citeflow replay` on the real pipeline and store sink (SQLite): by time range and by
answer id, a dry run, progress, an empty or reversed selection refused, and `--recompute`
pushing a new version of a stored result."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from services.cli import main
from services.stages import STAGE_NAMES
from services.store.sql import SqlStore
from tests.integration.conftest import Harness, small_answers

pytestmark = pytest.mark.integration


def _run(harness: Harness, *args: str) -> Any:
    return CliRunner().invoke(main, [*args, "--bootstrap", harness.bootstrap, "--prefix",
                                     harness.prefix], catch_exceptions=False)


def _stored(url: str, ids: list[str]) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        store = SqlStore(url)
        try:
            await store.migrate()  # the sink may not have yet
            return await store.get_many(ids, None)
        finally:
            await store.close()

    return asyncio.run(go())


def _now() -> str:
    return datetime.now(UTC).isoformat()


def test_replay_by_time_and_by_answer_id_recomputes_stored_results(
        harness: Harness, tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    harness.create_topics([*STAGE_NAMES, "store"])
    for name in STAGE_NAMES:
        harness.start(name)
    harness.start("store", CITEFLOW_STORE_URL=url)
    since = _now()
    harness.submit(small_answers(2, "early"))
    until = _now()
    harness.submit(small_answers(1, "late"))
    ids = ["early-0", "early-1", "late-0"]

    def formatted(expect: dict[str, str] | None = None) -> bool:
        rows = _stored(url, ids)
        return len(rows) == 3 and all(
            r.status == "formatted" and (expect is None or r.event_id != expect[i])
            for i, r in rows.items() if expect is None or i in expect)

    harness.wait_for(formatted, "every answer formatted")
    first = {i: r.event_id for i, r in _stored(url, ids).items()}

    # A dry run counts and publishes nothing.
    dry = _run(harness, "replay", "answers.submitted", "--since", since, "--until", until,
               "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.split() == ["2", "answers.submitted"]
    assert len(harness.read("answers.submitted")) == 3

    # By time, recomputed: the two early answers get new stored results, with progress.
    done = _run(harness, "replay", "answers.submitted", "--since", since, "--until", until,
                "--recompute")
    assert done.exit_code == 0, done.output
    assert "replayed 2/2" in done.stderr
    early = {i: first[i] for i in ("early-0", "early-1")}
    harness.wait_for(lambda: formatted(early), "new versions of the early results")
    assert _stored(url, ["late-0"])["late-0"].event_id == first["late-0"]

    # By answer id.
    one = _run(harness, "replay", "answers.submitted", "--answer-id", "late-0", "--recompute")
    assert one.exit_code == 0, one.output
    harness.wait_for(lambda: formatted({"late-0": first["late-0"]}), "a new late result")

    # Selections of nothing are errors.
    for args in (["--since", until, "--until", since], ["--start", "5", "--end", "5"],
                 ["--since", "2000-01-01", "--until", "2000-01-02"],
                 ["--answer-id", "no-such-answer"], ["--since", "yesterday"]):
        refused = _run(harness, "replay", "answers.submitted", *args)
        assert refused.exit_code != 0, (args, refused.output)
    assert len(harness.read("answers.submitted")) == 6
