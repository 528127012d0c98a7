"""Supervising stage processes: start each, restart one that dies, stop all by pid."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

_PR_SET_PDEATHSIG = 1
MAX_BACKOFF_S = 30.0
STABLE_AFTER_S = 60.0


def die_with_parent() -> None:
    """In a child before exec (Linux): get SIGTERM when the parent dies, so nothing is
    left behind if the supervisor itself is killed."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def stage_command(spec: str) -> list[str]:
    """The argv of one stage process (`citeflow run STAGE`)."""
    return [sys.executable, "-m", "services.runtime", spec]


@dataclass
class Child:
    """One supervised process: a stage replica, or another command (`argv`, e.g. the
    gateway) supervised the same way."""

    spec: str
    replica: int
    env: dict[str, str]
    log_path: Path | None = None
    argv: list[str] | None = None
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    started_at: float = 0.0
    not_before: float = 0.0
    backoff: float = 1.0
    last_exit: int | None = None

    @property
    def name(self) -> str:
        """`stage#replica`."""
        return f"{self.spec.rsplit(':', 1)[-1]}#{self.replica}"

    @property
    def pid(self) -> int | None:
        """The running process id, if any."""
        return self.process.pid if self.process and self.process.poll() is None else None

    def start(self) -> None:
        """Start the process (its log appended to `log_path`, else inherited stderr)."""
        out = open(self.log_path, "ab") if self.log_path else None  # noqa: SIM115
        try:
            self.process = subprocess.Popen(
                self.argv or stage_command(self.spec),
                env={**os.environ, **self.env},
                stdout=out or subprocess.DEVNULL,
                stderr=out,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        finally:
            if out is not None:
                out.close()
        self.started_at = time.monotonic()


class Supervisor:
    """Keeps every child running until `stop()`."""

    def __init__(self, children: list[Child]) -> None:
        self.children = children

    def start(self) -> None:
        """Start every child."""
        for child in self.children:
            child.start()

    def check(self) -> list[str]:
        """Restart children that died (with backoff); returns what happened."""
        events: list[str] = []
        now = time.monotonic()
        for child in self.children:
            process = child.process
            if process is None or process.poll() is None:
                continue
            if child.not_before == 0.0:
                child.last_exit = process.returncode
                uptime = now - child.started_at
                child.backoff = 1.0 if uptime > STABLE_AFTER_S else min(
                    MAX_BACKOFF_S, child.backoff * 2
                )
                child.not_before = now + child.backoff
                events.append(f"{child.name} exited with {process.returncode}; "
                              f"restarting in {child.backoff:.0f}s")
            elif now >= child.not_before:
                child.not_before = 0.0
                child.restarts += 1
                child.start()
                events.append(f"{child.name} restarted (pid {child.pid})")
        return events

    def stop(self, timeout: float) -> None:
        """SIGTERM every child by pid, wait up to `timeout`, then SIGKILL the rest."""
        running = [c.process for c in self.children if c.process and c.process.poll() is None]
        for process in running:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for process in running:
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
