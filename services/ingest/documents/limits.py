"""Limits that keep hostile or absurd documents from exhausting memory or CPU."""

from __future__ import annotations

from dataclasses import dataclass

from services.runtime.topic_specs import MAX_RECORD_BYTES

MiB = 1024 * 1024


@dataclass(frozen=True)
class IngestLimits:
    """Upper bounds checked before (zip metadata, page count) and after (event size) parsing."""

    max_document_bytes: int = 256 * MiB
    max_zip_entries: int = 10_000
    # The decompression budget of one document (ingest and the reader alike, enforced while
    # inflating): every entry at most max(ratio_floor_bytes, ratio x its compressed size),
    # and all entries together at most max_total_uncompressed_bytes.
    max_entry_bytes: int = 64 * MiB
    max_total_uncompressed_bytes: int = 128 * MiB
    max_compression_ratio: float = 100.0
    # Small entries compress absurdly well (a run of spaces): each may inflate this much.
    ratio_floor_bytes: int = 64 * 1024
    # XHTML of all spine items together (parsed whole by ingest: lxml trees take several
    # times their text) and of one chapter as the reader shows it (parsed and sanitised).
    max_spine_bytes: int = 64 * MiB
    max_chapter_bytes: int = 8 * MiB
    max_pdf_pages: int = 5_000
    # documents.ingested must fit the producers' record limit with room for the envelope.
    max_event_bytes: int = MAX_RECORD_BYTES - MiB


DEFAULT_LIMITS = IngestLimits()
