"""Retrieved passages (a framework's documents or nodes) as citeflow sources: one
source per passage in retrieval order, so the answer's `[n]` names the n-th passage; the
loaders' metadata become titles, URLs, document ids and page/href hints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

FORMATS = {".pdf": "pdf", ".epub": "epub", ".html": "html", ".htm": "html", ".txt": "text",
           ".md": "text"}


def _page(metadata: Mapping[str, Any]) -> int | None:
    """A 1-based page: `page_label` when numeric, else `page_number`, else LangChain's
    0-based `page` (PyPDFLoader, PyMuPDFLoader) plus one."""
    label = metadata.get("page_label")
    if isinstance(label, str) and label.isdigit() and int(label) >= 1:
        return int(label)
    for name, shift in (("page_number", 0), ("page", 1)):
        value = metadata.get(name)
        if isinstance(value, int) and value + shift >= 1:
            return value + shift
    return None


def source_of(index: int, text: str, metadata: Mapping[str, Any],
              score: float | None = None) -> dict[str, Any]:
    """One passage as a source with `index`."""
    origin = str(metadata.get("source") or metadata.get("file_path")
                 or metadata.get("file_name") or "")
    url = metadata.get("url") or (origin if origin.startswith(("http://", "https://")) else None)
    fmt = metadata.get("format") or FORMATS.get(PurePath(origin.split("?")[0]).suffix.lower())
    chunk: dict[str, Any] = {"text": text}
    for name in ("chunk_id", "section_id", "href"):
        if isinstance(metadata.get(name), str):
            chunk[name] = metadata[name]
    page = _page(metadata)
    if page is not None:
        chunk["page"] = page
    start = metadata.get("start_index", metadata.get("start_char"))
    if isinstance(start, int) and start >= 0:
        chunk["start_char"] = start
    source: dict[str, Any] = {
        "index": index, "kind": "web" if url and not metadata.get("doc_id") else "document",
        "title": metadata.get("title") or (PurePath(origin).name if origin and not url
                                           else origin) or None,
        "chunks": [chunk]}
    for name, value in (("url", url), ("doc_id", metadata.get("doc_id")),
                        ("source_id", metadata.get("source_id")),
                        ("format", fmt if fmt in ("pdf", "epub", "html", "text") else None),
                        ("score", score if score is not None else metadata.get("score"))):
        if value is not None:
            source[name] = value
    return {k: v for k, v in source.items() if v is not None}


def sources_of(passages: Sequence[tuple[str, Mapping[str, Any], float | None]]
               ) -> list[dict[str, Any]]:
    """Passages (text, metadata, score) as sources 1..n; a passage retrieved twice once."""
    seen: set[tuple[str, str]] = set()
    found: list[dict[str, Any]] = []
    for text, metadata, score in passages:
        key = (text, repr(sorted((str(k), repr(v)) for k, v in metadata.items())))
        if key in seen:
            continue
        seen.add(key)
        found.append(source_of(len(found) + 1, text, metadata, score))
    return found
