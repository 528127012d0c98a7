"""The reader's view of stored documents: opened once, kept in small caches, rendered once.

Documents are keyed by content (their SHA-256), so two tenants' uploads of the same file
share the parsed package and the rendered pages while the store keeps their rows apart.
Opened EPUB packages and PDF indexes live in an LRU; sanitised chapters too; page PNGs are
written once to a cache directory and served from there. Everything here is synchronous
CPU work: the routes call it in a worker thread, one document operation at a time per
document (PyMuPDF documents are not thread-safe).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from services.ingest.documents.archive import open_zip
from services.ingest.documents.chapter import chapter_view
from services.ingest.documents.epub import EpubPackage, open_epub
from services.ingest.documents.ingest import epub_sections
from services.ingest.documents.limits import DEFAULT_LIMITS
from services.ingest.documents.pdf import open_pdf
from services.ingest.documents.pdf_locate import PdfIndex, render_png
from services.ingest.documents.quote_match import SearchText
from services.ingest.documents.store import DocumentStore

T = TypeVar("T")
IMAGE_TYPES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp",
}


class _Lru:
    """A small thread-safe LRU."""

    def __init__(self, entries: int) -> None:
        self._entries = entries
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], T]) -> T:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                found: T = self._items[key]
                return found
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._entries:
                self._items.popitem(last=False)
        return value


class DocumentLibrary:
    """Opened documents, sanitised chapters and rendered pages of a document store."""

    def __init__(self, store: DocumentStore, cache_dir: Path, entries: int = 16) -> None:
        self.store = store
        self.cache_dir = cache_dir
        self._documents = _Lru(entries)
        self._chapters = _Lru(entries * 16)
        self._locks = _Lru(entries * 4)

    def lock(self, sha256: str) -> threading.Lock:
        """The lock serialising work on one document."""
        return self._locks.get(sha256, threading.Lock)

    def epub(self, path: str, sha256: str) -> EpubPackage:
        return self._documents.get(
            ("epub", sha256), lambda: open_epub(self.store.read(path), DEFAULT_LIMITS)
        )

    def pdf(self, path: str, sha256: str) -> PdfIndex:
        def make() -> PdfIndex:
            document, _ = open_pdf(self.store.read(path), DEFAULT_LIMITS)
            return PdfIndex(document)

        return self._documents.get(("pdf", sha256), make)

    def chapter(self, path: str, sha256: str, doc_id: str, href: str) -> dict[str, Any]:
        """The sanitised chapter view (not yet marked), cached per document and href."""
        return self._chapters.get(
            (sha256, doc_id, href),
            lambda: chapter_view(self.epub(path, sha256), href, doc_id),
        )

    def chapter_texts(self, path: str, sha256: str) -> list[tuple[str, SearchText]]:
        """Every spine item's reading text (as ingest extracts it), searchable."""
        def make() -> list[tuple[str, SearchText]]:
            sections, _ = epub_sections(self.epub(path, sha256), "reader")
            return [(section["href"], SearchText(section["text"])) for section in sections]

        return self._documents.get(("texts", sha256), make)

    def resource(self, path: str, sha256: str, name: str) -> tuple[bytes, str] | None:
        """An image of the EPUB by its full container path, with its media type; None when
        it is not a manifest resource or not a raster image (SVG can carry script)."""
        package = self.epub(path, sha256)
        media_type = IMAGE_TYPES.get(os.path.splitext(name)[1].lower())
        if media_type is None or name not in package.resources:
            return None
        with open_zip(self.store.read(path), DEFAULT_LIMITS) as archive:
            try:
                return archive.read(name), media_type
            except KeyError:
                return None

    def page_png(self, path: str, sha256: str, number: int, scale: float) -> bytes:
        """The page as PNG, rendered on first request and then read from the cache."""
        cached = self.cache_dir / sha256[:2] / f"{sha256}-{number}@{scale:g}.png"
        if cached.is_file():
            return cached.read_bytes()
        index = self.pdf(path, sha256)
        with self.lock(sha256):
            data = render_png(index.document, number, scale)
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f".{cached.name}.{os.getpid()}.{threading.get_ident()}")
        partial.write_bytes(data)
        os.replace(partial, cached)
        return data

