"""The reader's view of stored documents: opened once, kept in small caches, rendered once.

Documents are keyed by content (their SHA-256), so two tenants' uploads of the same file
share the parsed package and the rendered pages while the store keeps their rows apart.
Opened EPUB packages, PDF indexes and sanitised chapters live in LRUs bounded in bytes;
page PNGs are the renderer's (renderer.py: other processes, a pixel budget, a deadline).
Everything here is synchronous CPU work, done in the reader processes (reader_work.py), one
operation at a time per document (PyMuPDF documents are not thread-safe).
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
from services.ingest.documents.limits import DEFAULT_LIMITS, MiB
from services.ingest.documents.pdf import open_pdf
from services.ingest.documents.pdf_locate import PdfIndex
from services.ingest.documents.quote_match import SearchText
from services.ingest.documents.store import DocumentStore

T = TypeVar("T")
DEFAULT_CACHE_BYTES = 64 * MiB
IMAGE_TYPES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp",
}


class _Lru:
    """A small thread-safe LRU bounded in bytes (each entry weighed when made)."""

    def __init__(self, max_bytes: int, weigh: Callable[[Any], int]) -> None:
        self._max_bytes = max_bytes
        self._weigh = weigh
        self._items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Any, make: Callable[[], T]) -> T:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                found: T = self._items[key][0]
                return found
        value = make()
        size = max(self._weigh(value), 1)
        with self._lock:
            if key in self._items:
                self._bytes -= self._items.pop(key)[1]
            self._items[key] = (value, size)
            self._bytes += size
            # The newest entry stays even when alone over the budget (it is in use).
            while self._bytes > self._max_bytes and len(self._items) > 1:
                self._bytes -= self._items.popitem(last=False)[1][1]
        return value


def _chapter_bytes(view: dict[str, Any]) -> int:
    return sum(len(v) for v in view.values() if isinstance(v, str))


def _texts_bytes(texts: list[tuple[str, SearchText]]) -> int:
    return sum(len(href) + 8 * len(text.text) for href, text in texts)  # text + its views


def _weight(value: Any) -> int:
    """Bytes an opened document holds, about."""
    if isinstance(value, EpubPackage):
        return value.inflated_bytes or sum(len(e.content) for e in value.spine)
    if isinstance(value, PdfIndex):
        return value.size
    return _texts_bytes(value) if isinstance(value, list) else 1


class DocumentLibrary:
    """Opened documents, sanitised chapters and rendered pages of a document store."""

    def __init__(self, store: DocumentStore, cache_dir: Path,
                 max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.store = store
        self.cache_dir = cache_dir
        # Bounded in bytes, not entries (by entries, 16 small EPUBs inflating to GBs
        # were kept): opened packages by what they inflated, PDFs by their size, chapters by
        # their text.
        self._documents = _Lru(max_bytes, _weight)
        self._chapters = _Lru(max_bytes // 4, _chapter_bytes)
        self._locks = _Lru(256, lambda _: 1)

    def lock(self, sha256: str) -> threading.Lock:
        """The lock serialising work on one document."""
        return self._locks.get(sha256, threading.Lock)

    def epub(self, path: str, sha256: str) -> EpubPackage:
        return self._documents.get(
            ("epub", sha256), lambda: open_epub(self.store.read(path), DEFAULT_LIMITS)
        )

    def pdf(self, path: str, sha256: str) -> PdfIndex:
        def make() -> PdfIndex:
            data = self.store.read(path)
            document, _ = open_pdf(data, DEFAULT_LIMITS)
            return PdfIndex(document, size=len(data))

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
