"""Limits that keep hostile or absurd documents from exhausting memory or CPU."""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True)
class IngestLimits:
    """Upper bounds checked before (zip metadata, page count) and after (event size) parsing."""

    max_document_bytes: int = 256 * MiB
    max_zip_entries: int = 10_000
    max_entry_bytes: int = 128 * MiB
    max_total_uncompressed_bytes: int = 512 * MiB
    max_compression_ratio: float = 100.0
    # Tiny entries compress absurdly well (a run of spaces); only larger ones are ratio-checked.
    ratio_check_min_bytes: int = 1 * MiB
    max_pdf_pages: int = 5_000
    # documents.ingested must fit the producers' max_request_size (~16 MB) with headroom.
    max_event_bytes: int = 15 * MiB


DEFAULT_LIMITS = IngestLimits()
