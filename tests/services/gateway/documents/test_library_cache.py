"""The reader's caches held 16 documents whatever their size (16 small EPUBs
inflating to GBs); they are bounded in bytes now."""

from __future__ import annotations

from services.gateway.documents.library import DocumentLibrary, _Lru
from services.ingest.documents.store import LocalDocumentStore
from tests.services.ingest.documents.builders import Chapter, EpubSpec, build_epub, xhtml


def test_the_lru_keeps_at_most_its_bytes_and_the_newest_entry() -> None:
    lru = _Lru(1000, len)
    for n in range(10):
        lru.get(n, lambda n=n: b"x" * 300)
    assert lru._bytes <= 1000 and list(lru._items) == [7, 8, 9]
    lru.get("big", lambda: b"x" * 5000)  # alone over the budget: kept while in use
    assert list(lru._items) == ["big"]


def test_opened_documents_are_weighed_by_what_they_inflated(tmp_path) -> None:
    store = LocalDocumentStore(tmp_path)
    library = DocumentLibrary(store, tmp_path / "cache", max_bytes=150_000)
    uris = []
    for n in range(6):
        text = " ".join(f"w{n}x{i}" for i in range(8_000))  # ~60 kB each
        uris.append(store.put(build_epub(EpubSpec([Chapter("c.xhtml", xhtml(f"<p>{text}</p>"),
                                                           "C")])), "epub"))
    for n, uri in enumerate(uris):
        assert library.epub(uri, f"sha-{n}").inflated_bytes > 50_000
    assert library._documents._bytes <= 150_000
    assert len(library._documents._items) < 6
