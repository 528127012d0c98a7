"""Opening EPUB containers safely: a decompression budget per document.

The central directory is checked first (entry count, encryption, declared sizes), then
every read inflates through `BudgetedZip.read`, which counts the bytes as they come out of
the decompressor and stops the moment an entry passes its ratio allowance or the document
passes its total: declared sizes are never trusted, and no entry is ratio-exempt. Ingest
and the reader open EPUBs only through `open_zip`, so both spend the same budget.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from services.ingest.documents.limits import IngestLimits
from services.ingest.documents.rejection import DocumentRejection

READ_CHUNK = 64 * 1024


class BudgetedZip(zipfile.ZipFile):
    """A ZipFile whose `read` inflates in chunks against the document's budget."""

    limits: IngestLimits
    inflated: int  # bytes inflated from this document so far (all reads)

    def read(self, name: Any, pwd: bytes | None = None) -> bytes:
        info = name if isinstance(name, zipfile.ZipInfo) else self.getinfo(name)
        # Small entries compress absurdly well (a run of spaces), so each gets a floor;
        # past it, the ratio to its compressed size bounds it.
        allowance = max(self.limits.ratio_floor_bytes,
                        int(info.compress_size * self.limits.max_compression_ratio))
        allowance = min(allowance, self.limits.max_entry_bytes)
        parts: list[bytes] = []
        size = 0
        with self.open(info, pwd=pwd) as stream:
            while chunk := stream.read(READ_CHUNK):
                size += len(chunk)
                self.inflated += len(chunk)
                if size > allowance:
                    raise DocumentRejection(
                        "zip_bomb",
                        f"zip entry {info.filename!r} inflates past {allowance} bytes "
                        f"from {info.compress_size} (ratio limit "
                        f"{self.limits.max_compression_ratio:.0f}:1)")
                if self.inflated > self.limits.max_total_uncompressed_bytes:
                    raise DocumentRejection(
                        "zip_too_large",
                        f"the zip inflates to more than "
                        f"{self.limits.max_total_uncompressed_bytes} bytes")
                parts.append(chunk)
        return b"".join(parts)


def open_zip(data: bytes, limits: IngestLimits) -> BudgetedZip:
    """A BudgetedZip over `data` whose central directory passed the checks."""
    if not data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        raise DocumentRejection("not_a_zip", "the document is not a zip container (EPUB)")
    try:
        archive = BudgetedZip(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            NotImplementedError) as exc:
        raise DocumentRejection("not_a_zip", f"the zip container is unreadable: {exc}") from None
    archive.limits = limits
    archive.inflated = 0
    check_entries(entries, limits)
    return archive


def check_entries(entries: list[zipfile.ZipInfo], limits: IngestLimits) -> None:
    """Refuse archives whose directory already declares too much (before inflating)."""
    if len(entries) > limits.max_zip_entries:
        raise DocumentRejection(
            "zip_too_many_entries",
            f"the zip has {len(entries)} entries (limit {limits.max_zip_entries})",
        )
    total = 0
    for info in entries:
        if info.flag_bits & 0x1:
            raise DocumentRejection(
                "zip_encrypted", f"zip entry {info.filename!r} is password-encrypted"
            )
        if info.file_size > limits.max_entry_bytes:
            raise DocumentRejection(
                "zip_entry_too_large",
                f"zip entry {info.filename!r} expands to {info.file_size} bytes "
                f"(limit {limits.max_entry_bytes})",
            )
        ratio = info.file_size / max(info.compress_size, 1)
        if (info.file_size > limits.ratio_floor_bytes
                and ratio > limits.max_compression_ratio):
            raise DocumentRejection(
                "zip_bomb",
                f"zip entry {info.filename!r} has compression ratio {ratio:.0f}:1 "
                f"(limit {limits.max_compression_ratio:.0f}:1)",
            )
        total += info.file_size
        if total > limits.max_total_uncompressed_bytes:
            raise DocumentRejection(
                "zip_too_large",
                f"the zip expands to more than {limits.max_total_uncompressed_bytes} bytes",
            )
