"""Shared fixtures: the test corpus (tests/corpus, or CITEFLOW_TEST_CORPUS), a headless
browser and a PostgreSQL server (each skipped where there is none), the Kafka-protocol broker
of the session, and the report of skips: listed loudly at the end of the run, and a failed
run under CITEFLOW_FAIL_ON_SKIP=1 (CI).

Each of these servers is defined here once: a session fixture re-imported into another
conftest or a test module is a fixture of its own there, and started its own server."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = Path(os.environ.get("CITEFLOW_TEST_CORPUS") or REPO_ROOT / "tests" / "corpus").resolve()
FAIL_ON_SKIP_ENV = "CITEFLOW_FAIL_ON_SKIP"
# The reader processes of every gateway the tests start (in process or as `citeflow serve`)
# run at the idle scheduling class: on a machine other work keeps busy they wait long for
# CPU, and the default deadline (10 s) turned the pages' reads into 503s. A liveness bound
# here: the tests of the deadline itself give their renderers budgets of their own.
os.environ.setdefault("CITEFLOW_READER_DEADLINE_SECONDS", "120")
# Where `citeflow up` records its embedded broker for other commands: one directory per test
# process, so that runs in parallel (pytest-xdist workers, other checkouts on the machine)
# never find each other's broker there.
STATE_DIR = os.environ["CITEFLOW_STATE_DIR"] = tempfile.mkdtemp(prefix="citeflow-test-state-")


def corpus_path(*parts: str) -> Path:
    """A path inside the test corpus; a missing file fails the test (the corpus is part of
    the repository, so nothing skips for want of it)."""
    path = CORPUS_DIR.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"corpus file missing: {path} (tests/corpus holds the test corpus)")
    return path


@pytest.fixture
def corpus() -> Path:
    """The corpus directory."""
    return corpus_path()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session (`tests.browser`); skips the test where there
    is none."""
    from tests.browser import start_browser

    driver = start_browser()
    try:
        yield driver
    finally:
        driver.quit()


def _docker_available() -> bool:
    try:
        import docker

        docker.from_env().ping()
        return True
    except Exception:  # noqa: BLE001 - any failure means no usable Docker
        return False


@pytest.fixture(scope="session")
def bootstrap() -> Iterator[str]:
    """The bootstrap address of the broker every test that needs one uses: the embedded
    Tansu by default; testcontainers' Apache Kafka when CITEFLOW_TEST_BROKER=testcontainers
    (skipped without Docker); any broker named by CITEFLOW_TEST_BOOTSTRAP. Tests isolate
    themselves by topic prefix."""
    named = os.environ.get("CITEFLOW_TEST_BOOTSTRAP")
    if named:
        yield named
        return
    if os.environ.get("CITEFLOW_TEST_BROKER") == "testcontainers":
        if not _docker_available():
            pytest.skip("CITEFLOW_TEST_BROKER=testcontainers but Docker is not available")
        from testcontainers.kafka import KafkaContainer

        with KafkaContainer().with_kraft() as kafka:
            yield kafka.get_bootstrap_server()
        return
    from services.broker import free_port, start_broker

    broker = start_broker(free_port())
    try:
        yield broker.bootstrap
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A PostgreSQL server for the session (tests.pg); skips the test where none can run."""
    from tests.pg import PgUnavailable, pg_server

    try:
        with pg_server() as server:
            yield server
    except PgUnavailable as exc:
        pytest.skip(f"PostgreSQL not available: {exc}")


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """The URL of a fresh, empty PostgreSQL database."""
    return str(pg_server.new_database())


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh store database URL, once SQLite and once PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    return str(request.getfixturevalue("pg_url"))


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(STATE_DIR, ignore_errors=True)


def _skips(reporter: Any) -> list[Any]:
    """The skipped tests of the run (expected failures are not skips)."""
    return [r for r in reporter.stats.get("skipped", []) if not hasattr(r, "wasxfail")]


def _reason(report: Any) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """A loud list of what skipped and why, grouped by reason."""
    skipped = _skips(terminalreporter)
    if not skipped:
        return
    by_reason: dict[str, int] = {}
    for report in skipped:
        by_reason[_reason(report)] = by_reason.get(_reason(report), 0) + 1
    terminalreporter.section(f"{len(skipped)} TESTS SKIPPED: they did not run here", sep="!",
                             red=True, bold=True)
    for reason, count in sorted(by_reason.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{count:5d}  {reason}", red=True)
    terminalreporter.write_line(
        "Install what they need (`make browser`, `make postgres`) and run them again."
        + (f" {FAIL_ON_SKIP_ENV}=1: this run fails." if _fail_on_skip() else ""), bold=True)


def _fail_on_skip() -> bool:
    return os.environ.get(FAIL_ON_SKIP_ENV, "") not in ("", "0")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under CITEFLOW_FAIL_ON_SKIP=1 a run with any skipped test fails."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if _fail_on_skip() and reporter is not None and _skips(reporter) and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
