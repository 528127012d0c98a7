"""A throwaway PostgreSQL server for tests (the store's production database).

Where it comes from, first that works: CITEFLOW_TEST_PG_URL (a server you run; each test
gets its own database in it); a cluster made with `initdb` from Debian's `postgresql` package
(`make postgres` installs it) in a temp dir, on a free loopback port, run as the `postgres`
user when we are root (initdb and postgres refuse to run as root); testcontainers'
PostgreSQL when Docker is there. Else the PostgreSQL tests skip.
"""

from __future__ import annotations

import asyncio
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa


class PgUnavailable(Exception):
    """No way to run PostgreSQL here (the reason is the message)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name or 0))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise PgUnavailable("no initdb (Debian: apt-get install postgresql, or `make postgres`)")


class LocalCluster:
    """A PostgreSQL cluster in a temp dir, started and stopped with pg_ctl."""

    def __init__(self) -> None:
        self.bin = _bin_dir()
        self.port = _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="citeflow-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self._user: str | None = None
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                raise PgUnavailable("running as root and there is no `postgres` user") from None
            self._user = "postgres"
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")

    def _run(self, tool: str, *args: str) -> None:
        argv = [str(self.bin / tool), *args]
        if self._user:
            argv = ["runuser", "-u", self._user, "--", *argv]
        done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise PgUnavailable(f"{tool} failed: {done.stderr.strip()[-800:]}")

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options,
                  "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        try:
            self.stop()
        except PgUnavailable:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


class PgServer:
    """One PostgreSQL server for the test session: fresh databases on demand, and (for a
    local cluster) stop/start to test outages."""

    def __init__(self, admin_url: str, cluster: LocalCluster | None = None) -> None:
        self.admin_url = admin_url
        self.cluster = cluster

    def new_database(self) -> str:
        """The URL of a new, empty database."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        asyncio.run(_execute(self.admin_url, f'CREATE DATABASE "{name}"'))
        return str(sa.make_url(self.admin_url).set(database=name).render_as_string(
            hide_password=False))

    @property
    def can_restart(self) -> bool:
        return self.cluster is not None

    def stop(self) -> None:
        assert self.cluster is not None
        self.cluster.stop()

    def start(self) -> None:
        assert self.cluster is not None
        self.cluster.start()


async def _execute(url: str, statement: str) -> None:
    """Run one statement with asyncpg (outside any transaction)."""
    import asyncpg

    dsn = sa.make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@contextmanager
def pg_server() -> Iterator[PgServer]:
    """A server for the session (see the module docstring); raises PgUnavailable."""
    named = os.environ.get("CITEFLOW_TEST_PG_URL")
    if named:
        yield PgServer(named)
        return
    try:
        cluster = LocalCluster()
    except PgUnavailable as local_error:
        with _container(str(local_error)) as url:
            yield PgServer(url)
        return
    try:
        cluster.start()
        _wait(cluster.url)
        yield PgServer(cluster.url, cluster)
    finally:
        cluster.remove()


@contextmanager
def _container(why_not_local: str) -> Iterator[str]:
    try:
        import docker

        docker.from_env().ping()
    except Exception:  # noqa: BLE001 - any failure means no usable Docker
        raise PgUnavailable(f"{why_not_local}; and no Docker for testcontainers") from None
    from testcontainers.postgres import PostgresContainer

    with PostgresContainer("postgres:16-alpine", driver="asyncpg") as container:
        yield container.get_connection_url()


def _wait(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            asyncio.run(_execute(url, "SELECT 1"))
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
