"""The document store: where `documents.submitted` references point.

`DocumentStore` is the interface ingest reads through; `WritableDocumentStore` adds what
the gateway's uploads need (`put_file`, `put`). `LocalDocumentStore` keeps documents in a
directory (`CITEFLOW_DOCUMENT_STORE`, default `./.citeflow/documents`), content-addressed:
a document is stored once under `sha256/<first two hex digits>/<digest>.<format>`, whoever
uploads it. An object store implements the same three methods later. References are
resolved strictly inside the store: absolute paths, `..`, backslashes, NUL and symlinks
that lead out of the root are refused.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
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


class WritableDocumentStore(DocumentStore, Protocol):
    """A document store that also accepts new documents, content-addressed."""

    def put_file(self, path: Path, sha256: str, suffix: str) -> str:
        """Move a finished upload (its digest already computed) into the store; return its
        reference. A document already there is kept and the upload discarded."""
        ...

    def put(self, data: bytes, suffix: str) -> str:
        """Store bytes; return their reference."""
        ...


def content_reference(sha256: str, suffix: str) -> str:
    """The reference of a document by content: `store://sha256/ab/abcd....pdf`."""
    if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
        raise ValueError(f"not a sha256 hex digest: {sha256!r}")
    if not suffix.isalnum():
        raise ValueError(f"not a file suffix: {suffix!r}")
    return f"{SCHEME}sha256/{sha256[:2]}/{sha256}.{suffix}"


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

    def put_file(self, path: Path, sha256: str, suffix: str) -> str:
        reference = content_reference(sha256, suffix)
        target = self.root.joinpath(*reference_parts(reference))
        if target.is_file():
            Path(path).unlink(missing_ok=True)
            return reference
        target.parent.mkdir(parents=True, exist_ok=True)
        # Into the target's directory first (a copy when it is another file system), then
        # renamed: a reader never sees half a document.
        partial = target.with_name(f".{target.name}.{os.getpid()}.part")
        shutil.move(os.fspath(path), partial)
        os.replace(partial, target)
        return reference

    def put(self, data: bytes, suffix: str) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=self.root, delete=False) as handle:
            handle.write(data)
        return self.put_file(Path(handle.name), hashlib.sha256(data).hexdigest(), suffix)
