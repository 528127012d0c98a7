"""The local document store: references resolve strictly inside its root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from services.ingest.documents.rejection import DocumentRejection
from services.ingest.documents.store import ENV_VAR, LocalDocumentStore


@pytest.fixture
def store(tmp_path: Path) -> LocalDocumentStore:
    root = tmp_path / "store"
    (root / "books").mkdir(parents=True)
    (root / "books" / "a.pdf").write_bytes(b"%PDF-a")
    (tmp_path / "secret.txt").write_bytes(b"secret")
    return LocalDocumentStore(root)


@pytest.mark.parametrize("uri", ["books/a.pdf", "store://books/a.pdf", "books/./a.pdf",
                                 "books%2Fa.pdf"])
def test_references_inside_the_store(store: LocalDocumentStore, uri: str) -> None:
    assert store.read(uri) == b"%PDF-a"
    assert store.size(uri) == 6


@pytest.mark.parametrize("uri", [
    "../secret.txt", "books/../../secret.txt", "/etc/passwd", "store:///etc/passwd",
    "file:///etc/passwd", "http://example.com/a.pdf", "books\\..\\..\\secret.txt",
    "%2e%2e/secret.txt", "books/a.pdf\x00.epub", "",
])
def test_traversal_and_foreign_references_are_refused(store: LocalDocumentStore, uri: str) -> None:
    with pytest.raises(DocumentRejection) as caught:
        store.read(uri)
    assert caught.value.code == "unsafe_reference"


def test_symlink_out_of_the_store_is_refused(store: LocalDocumentStore, tmp_path: Path) -> None:
    os.symlink(tmp_path / "secret.txt", store.root / "books" / "link.pdf")
    with pytest.raises(DocumentRejection) as caught:
        store.read("books/link.pdf")
    assert caught.value.code == "unsafe_reference"


def test_missing_documents_and_directories(store: LocalDocumentStore) -> None:
    for uri in ("books/missing.pdf", "books"):
        with pytest.raises(DocumentRejection) as caught:
            store.read(uri)
        assert caught.value.code == "document_not_found"


def test_root_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert LocalDocumentStore.from_env().root == tmp_path.resolve()
    monkeypatch.delenv(ENV_VAR)
    assert LocalDocumentStore.from_env().root == Path(".citeflow/documents").resolve()
