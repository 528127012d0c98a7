"""Opening EPUB containers safely: zip metadata is checked before anything is extracted."""

from __future__ import annotations

import io
import zipfile

from services.ingest.documents.limits import IngestLimits
from services.ingest.documents.rejection import DocumentRejection


def open_zip(data: bytes, limits: IngestLimits) -> zipfile.ZipFile:
    """A ZipFile over `data` whose entries passed the bomb checks (count, sizes, ratio).

    The checks read only the central directory. They are sufficient because zipfile never
    inflates an entry beyond its declared size (it fails the CRC/size check instead).
    """
    if not data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        raise DocumentRejection("not_a_zip", "the document is not a zip container (EPUB)")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            NotImplementedError) as exc:
        raise DocumentRejection("not_a_zip", f"the zip container is unreadable: {exc}") from None
    check_entries(entries, limits)
    return archive


def check_entries(entries: list[zipfile.ZipInfo], limits: IngestLimits) -> None:
    """Refuse archives that would expand into too much data."""
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
        if info.file_size >= limits.ratio_check_min_bytes and ratio > limits.max_compression_ratio:
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
