"""API key secrets: `cf_<key id>_<token>`, shown once, stored as a SHA-256 hash.

The token is 32 random bytes (`secrets.token_urlsafe`), so a fast unsalted hash is enough: no
dictionary or brute force reaches 256 bits of entropy, and the check stays cheap per request
(a slow password hash such as bcrypt would cost milliseconds on every call for no gain). The
key id, a public prefix, finds the row; the hashes are compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

SCOPES: frozenset[str] = frozenset({"submit", "read", "stream", "ops", "admin"})
_SECRET = re.compile(r"^cf_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$")
# Compared against when the key id is unknown, so that case costs the same as a wrong token.
_DUMMY_HASH = hashlib.sha256(b"no such key").hexdigest()


def new_secret() -> tuple[str, str]:
    """A fresh (key id, secret)."""
    key_id = secrets.token_hex(8)
    return key_id, f"cf_{key_id}_{secrets.token_urlsafe(32)}"


def secret_hash(secret: str) -> str:
    """The stored form of a secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def key_id_of(secret: str) -> str | None:
    """The key id a presented secret names, or None when it is not shaped like one of ours."""
    match = _SECRET.match(secret)
    return match.group(1) if match else None


def matches(secret: str, stored_hash: str | None) -> bool:
    """Whether `secret` hashes to `stored_hash`, in constant time (also when there is none)."""
    return hmac.compare_digest(secret_hash(secret), stored_hash or _DUMMY_HASH) and (
        stored_hash is not None
    )


def parse_scopes(text: str) -> frozenset[str]:
    """Scopes from `submit,read`; unknown names raise ValueError."""
    scopes = frozenset(s.strip() for s in text.split(",") if s.strip())
    unknown = scopes - SCOPES
    if unknown:
        raise ValueError(f"unknown scopes {sorted(unknown)}; known: {sorted(SCOPES)}")
    if not scopes:
        raise ValueError("at least one scope is required")
    return scopes
