"""Waiting on what a process under test prints to its log file."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path


def wait_for_output(path: Path, pattern: str, process: subprocess.Popen[bytes],
                    timeout: float = 180.0) -> re.Match[str]:
    """The first match of `pattern` in the file `process` writes; fails with the file's tail
    when the process exits first or nothing matches within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, path.read_text(errors="replace"))
        if found:
            return found
        assert process.poll() is None, path.read_text(errors="replace")[-3000:]
        time.sleep(0.3)
    raise AssertionError(f"{pattern!r} not printed: {path.read_text(errors='replace')[-3000:]}")
