"""Files only the service's own user may read: the SQLite results store (with its WAL),
the reader's page cache, the stream id key. They hold every tenant's results and pages,
so they are made 0600 in directories made 0700, whatever the umask."""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """`path` as a directory, made 0700 (with any missing parents) if it did not exist.
    One that exists is left as it is: it may be shared (say /tmp), and is not ours."""
    if not path.is_dir():
        for missing in reversed([path, *path.parents]):
            if not missing.exists():
                missing.mkdir(mode=DIR_MODE, exist_ok=True)
                os.chmod(missing, DIR_MODE)  # mkdir's mode is masked by the umask
    return path


def private_file(path: Path) -> Path:
    """`path` as an existing file of mode 0600 (made empty if absent)."""
    private_dir(path.parent)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    os.chmod(path, FILE_MODE)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to a new file `path` of mode 0600."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
