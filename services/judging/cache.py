"""Opinions remembered by (claim, evidence, judge): the same citation judged again (a replay,
a duplicate delivery, the same sentence in another answer) costs no call."""

from __future__ import annotations

import hashlib
import threading

from cachetools import LRUCache

from services.judging.judge import Opinion


def cache_key(claim: str, evidence: str, judge: str) -> str:
    """The SHA-256 of the three texts (length-prefixed: no two triples share a key)."""
    digest = hashlib.sha256()
    for part in (claim, evidence, judge):
        data = part.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


class OpinionCache:
    """A bounded LRU of usable opinions, shared by the stage's concurrent calls."""

    def __init__(self, size: int = 10_000) -> None:
        self._entries: LRUCache[str, Opinion] = LRUCache(maxsize=max(1, size))
        self._lock = threading.Lock()

    def get(self, key: str) -> Opinion | None:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: str, opinion: Opinion) -> None:
        with self._lock:
            self._entries[key] = opinion
