"""The gateway's secret: what seals stream ids (`stream/positions.py`) and signs embed
tokens (`embed_tokens.py`), each under a key derived for it.

`CITEFLOW_STREAM_ID_KEY` names it (the same random string on every replica, at least
`MIN_KEY_CHARS` long: a guessable one would let a client seal positions or sign tokens
itself); without it a random one is made once in the data directory (processes of one
host share it, and it survives restarts)."""

from __future__ import annotations

import functools
import hmac
import os
from collections.abc import Mapping
from pathlib import Path

from services.private_files import private_dir

KEY_ENV = "CITEFLOW_STREAM_ID_KEY"
MIN_KEY_CHARS = 32


def named_key(environ: Mapping[str, str]) -> bytes:
    """The key `CITEFLOW_STREAM_ID_KEY` names (empty: none); ValueError if it is too short
    to be a secret."""
    named = environ.get(KEY_ENV, "")
    if named and len(named) < MIN_KEY_CHARS:
        raise ValueError(f"{KEY_ENV} must be at least {MIN_KEY_CHARS} characters of a random "
                         f"string (it has {len(named)}); make one with: python -c "
                         "'import secrets; print(secrets.token_urlsafe(32))'")
    return named.encode()


@functools.cache
def gateway_secret() -> bytes:
    """`CITEFLOW_STREAM_ID_KEY`, else a random key kept in the data directory (made once,
    mode 0600), so seals survive a restart; else (no writable data directory) a random one."""
    named = named_key(os.environ)
    if named:
        return named
    path = Path(os.environ.get("CITEFLOW_DATA_DIR") or ".citeflow") / "stream-id.key"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    except OSError:
        return os.urandom(32)
    try:
        private_dir(path.parent)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(os.urandom(32))
    except FileExistsError:
        pass  # another worker made it first
    except OSError:
        return os.urandom(32)
    return path.read_bytes()


def derived_key(label: bytes) -> bytes:
    """A key for one of the gateway's seals, independent of the others'."""
    return hmac.digest(gateway_secret(), b"citeflow: " + label, "sha256")
