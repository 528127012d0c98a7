"""Retrieved passages (a framework's documents or nodes) as citeflow sources: one
source per passage in retrieval order, so the answer's `[n]` names the n-th passage; the
loaders' metadata become titles, URLs, document ids and page/href hints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

FORMATS = {".pdf": "pdf", ".epub": "epub", ".html": "html", ".htm": "html", ".xhtml": "html",
           ".txt": "text", ".md": "text"}
# Where each common loader names its file: LangChain's `source` and PyMuPDF/PDFPlumber
# `file_path`, LlamaIndex's `file_path`/`file_name`, Unstructured's `filename`.
ORIGIN_KEYS = ("source", "file_path", "file_name", "filename")
# Where they say what the file is: citeflow's own `format` ("pdf"), LangChain PyMuPDFLoader's
# `format` ("PDF 1.6"), LlamaIndex's `file_type` and Unstructured's `filetype` (MIME types).
FORMAT_KEYS = ("format", "file_type", "filetype", "mime_type", "content_type")
MIME_TYPES = {"application/pdf": "pdf", "application/epub+zip": "epub", "text/html": "html",
              "application/xhtml+xml": "html", "text/plain": "text", "text/markdown": "text"}


def _format_word(value: str) -> str | None:
    """A loader's format value as citeflow's: its own name, a MIME type, or a version
    string such as "PDF 1.6"."""
    value = value.strip().lower()
    if value in FORMATS.values():
        return value
    if "/" in value:
        return MIME_TYPES.get(value.split(";")[0].strip())
    first = value.split()[0] if value.split() else ""
    return FORMATS.get(f".{first}")


def _format(metadata: Mapping[str, Any], origin: str) -> str | None:
    """The document's format from the loader's metadata, else its file name's extension."""
    for name in FORMAT_KEYS:
        value = metadata.get(name)
        found = _format_word(value) if isinstance(value, str) else None
        if found:
            return found
    return FORMATS.get(PurePath(origin.split("?")[0]).suffix.lower())


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
    origin = str(next((metadata[k] for k in ORIGIN_KEYS if metadata.get(k)), ""))
    url = metadata.get("url") or (origin if origin.startswith(("http://", "https://")) else None)
    fmt = _format(metadata, origin)
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
                        ("format", fmt),
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
