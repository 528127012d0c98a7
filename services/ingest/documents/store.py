"""The document store: where `documents.submitted` references point.

`DocumentStore` is the interface; `LocalDocumentStore` keeps documents in a directory
(`CITEFLOW_DOCUMENT_STORE`, default `./.citeflow/documents`). References are resolved
strictly inside the store: absolute paths, `..`, backslashes, NUL and symlinks that lead
out of the root are refused.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Protocol
from urllib.parse import unquote

from services.ingest.documents.rejection import DocumentRejection

ENV_VAR = "CITEFLOW_DOCUMENT_STORE"
DEFAULT_ROOT = "./.citeflow/documents"
SCHEME = "store://"


class DocumentStore(Protocol):
    """Reads a referenced document; raises DocumentRejection for bad or missing references."""

    def size(self, uri: str) -> int:
        """The size in bytes of the referenced document."""
        ...

    def read(self, uri: str) -> bytes:
        """The bytes of the referenced document."""
        ...


def reference_parts(uri: str) -> tuple[str, ...]:
    """The path segments of a store reference (`store://a/b.pdf` or `a/b.pdf`), validated."""
    raw = uri.removeprefix(SCHEME)
    if "://" in raw or raw.startswith(("file:", "/")):
        raise DocumentRejection("unsafe_reference", f"reference {uri!r} is not inside the store")
    path = unquote(raw)
    if not path or "\x00" in path or "\\" in path:
        raise DocumentRejection("unsafe_reference", f"reference {uri!r} is not a store path")
    parts = PurePosixPath(path).parts
    if not parts or any(part in ("..", "/") for part in parts) or path.startswith("/"):
        raise DocumentRejection("unsafe_reference", f"reference {uri!r} leaves the store")
    return parts


class LocalDocumentStore:
    """Documents in a local directory."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()

    @classmethod
    def from_env(cls) -> LocalDocumentStore:
        """The store named by `CITEFLOW_DOCUMENT_STORE` (or the default directory)."""
        return cls(os.environ.get(ENV_VAR) or DEFAULT_ROOT)

    def path(self, uri: str) -> Path:
        """The file a reference names, guaranteed to be inside the root (symlinks resolved)."""
        candidate = self.root.joinpath(*reference_parts(uri)).resolve()
        if not candidate.is_relative_to(self.root):
            raise DocumentRejection("unsafe_reference", f"reference {uri!r} leaves the store")
        if not candidate.is_file():
            raise DocumentRejection("document_not_found", f"no document at {uri!r} in the store")
        return candidate

    def size(self, uri: str) -> int:
        return self.path(uri).stat().st_size

    def read(self, uri: str) -> bytes:
        return self.path(uri).read_bytes()
