"""Bad documents: each refused with its reason, before anything is expanded."""

from __future__ import annotations

import pymupdf
import pytest

from services.ingest.documents.ingest import ingest_document
from services.ingest.documents.limits import IngestLimits, MiB
from services.ingest.documents.problems import problem_code
from services.ingest.documents.rejection import DocumentRejection
from tests.services.ingest.documents.builders import (
    Chapter,
    EpubSpec,
    build_epub,
    build_pdf,
    xhtml,
    zip_bytes,
)

CHAPTER = Chapter("c.xhtml", xhtml("<p>Text.</p>"), "C")


def rejection_code(data: bytes, limits: IngestLimits | None = None, **kwargs: object) -> str:
    with pytest.raises(DocumentRejection) as caught:
        ingest_document(data, "bad", limits=limits or IngestLimits(), **kwargs)
    assert caught.value.message
    return caught.value.code


def test_neither_pdf_nor_zip() -> None:
    assert rejection_code(b"hello, I am plain text") == "unknown_format"
    assert rejection_code(b"") == "unknown_format"


def test_declared_format_must_match_the_bytes() -> None:
    assert rejection_code(b"plain text", declared_format="pdf") == "not_a_pdf"
    assert rejection_code(b"plain text", declared_format="epub") == "not_a_zip"
    assert rejection_code(build_pdf([["x"]]), declared_format="epub") == "not_a_zip"


def test_truncated_zip_and_broken_pdf() -> None:
    assert rejection_code(build_epub(EpubSpec([CHAPTER]))[:200]) == "not_a_zip"
    assert rejection_code(b"%PDF-1.7\nthis is not a pdf body") == "unreadable_pdf"


def test_password_protected_pdf() -> None:
    data = build_pdf([["secret"]], encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u",
                     owner_pw="o")
    assert rejection_code(data) == "pdf_password_protected"


def test_encrypted_pdf_that_forbids_copying_text() -> None:
    data = build_pdf([["secret"]], encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o",
                     permissions=pymupdf.PDF_PERM_PRINT)
    assert rejection_code(data) == "pdf_encrypted"


def test_owner_only_encryption_that_allows_copying_is_ingested_with_a_problem() -> None:
    data = build_pdf([["readable"]], encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o",
                     permissions=pymupdf.PDF_PERM_PRINT | pymupdf.PDF_PERM_COPY)
    ingested = ingest_document(data, "ok")
    assert ingested.sections[0].text == "readable"
    assert [problem_code(p) for p in ingested.problems] == ["pdf_encrypted_owner_only"]


def test_absurd_page_counts() -> None:
    assert rejection_code(build_pdf([["p"]] * 4), IngestLimits(max_pdf_pages=3)) == "too_many_pages"
    lying = (b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
             b"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1000000000 >> endobj\n"
             b"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\n"
             b"trailer << /Root 1 0 R >>\n%%EOF")
    assert rejection_code(lying) in {"invalid_page_tree", "too_many_pages", "unreadable_pdf"}


def test_oversized_document() -> None:
    assert rejection_code(build_pdf([["x"]]), IngestLimits(max_document_bytes=100)) == (
        "document_too_large")


def test_drm_encryption_xml() -> None:
    encryption = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        b'<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
        b'<enc:CipherData><enc:CipherReference URI="OEBPS/c.xhtml"/></enc:CipherData>'
        b"</enc:EncryptedData></encryption>"
    )
    data = build_epub(EpubSpec([CHAPTER], extra_files={"META-INF/encryption.xml": encryption}))
    assert rejection_code(data) == "drm_protected"


def test_rights_xml_is_drm() -> None:
    data = build_epub(EpubSpec([CHAPTER], extra_files={"META-INF/rights.xml": b"<rights/>"}))
    assert rejection_code(data) == "drm_protected"


def test_font_obfuscation_alone_is_not_drm() -> None:
    encryption = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        b'<enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>'
        b'<enc:CipherData><enc:CipherReference URI="OEBPS/font.otf"/></enc:CipherData>'
        b"</enc:EncryptedData></encryption>"
    )
    data = build_epub(EpubSpec([CHAPTER], extra_files={"META-INF/encryption.xml": encryption}))
    ingested = ingest_document(data, "fonts")
    assert [problem_code(p) for p in ingested.problems] == ["fonts_obfuscated"]


def test_missing_container_and_missing_opf() -> None:
    assert rejection_code(build_epub(EpubSpec([CHAPTER], with_container=False))) == (
        "missing_container")
    assert rejection_code(build_epub(EpubSpec([CHAPTER], with_opf=False))) == "missing_opf"
    assert rejection_code(zip_bytes({"word/document.xml": b"<w/>"})) == "missing_container"


def test_manifest_item_missing_from_the_zip() -> None:
    spec = EpubSpec([CHAPTER], extra_manifest=[("ghost", "ghost.xhtml", "application/xhtml+xml")])
    assert rejection_code(build_epub(spec)) == "invalid_epub"


def test_zip_bomb_by_compression_ratio() -> None:
    bomb = zip_bytes({"mimetype": b"application/epub+zip", "bomb.xhtml": b"\0" * (4 * MiB)})
    assert rejection_code(bomb) == "zip_bomb"


def test_zip_limits_on_entries_and_sizes() -> None:
    data = build_epub(EpubSpec([CHAPTER]))
    assert rejection_code(data, IngestLimits(max_zip_entries=3)) == "zip_too_many_entries"
    assert rejection_code(data, IngestLimits(max_entry_bytes=100)) == "zip_entry_too_large"
    assert rejection_code(data, IngestLimits(max_total_uncompressed_bytes=500)) == "zip_too_large"


def test_lying_zip_metadata_never_inflates_more_than_declared() -> None:
    big = Chapter("big.xhtml", xhtml("<p>" + "a" * 200_000 + "</p>"), "Big")
    data = bytearray(build_epub(EpubSpec([big])))
    # Declare 10 bytes as the uncompressed size of big.xhtml in the central directory:
    # zipfile stops there and fails the entry instead of inflating 200 kB.
    name = b"OEBPS/big.xhtml"
    central = data.find(b"PK\x01\x02")
    while data[central + 46:central + 46 + len(name)] != name:
        central = data.find(b"PK\x01\x02", central + 4)
    data[central + 24:central + 28] = (10).to_bytes(4, "little")
    assert rejection_code(bytes(data)) == "invalid_epub"


def test_encrypted_zip_entries_are_refused() -> None:
    data = bytearray(build_epub(EpubSpec([CHAPTER])))
    central = data.find(b"PK\x01\x02")
    data[central + 8] |= 0x1
    assert rejection_code(bytes(data)) == "zip_encrypted"


def test_event_size_limit() -> None:
    data = build_epub(EpubSpec([Chapter("c.xhtml", xhtml("<p>" + "word " * 2000 + "</p>"), "C")]))
    assert rejection_code(data, IngestLimits(max_event_bytes=5_000)) == "too_large_for_event"


def _small_bomb() -> bytes:
    """Ten chapters of just under 1 MiB each that compress ~500:1 (an EPUB of
    about 20 KB) passed the old check, which skipped entries under 1 MiB."""
    chapters = [Chapter(f"c{i}.xhtml", xhtml("<p>" + "a " * 500_000 + "</p>"), f"C{i}")
                for i in range(10)]
    return build_epub(EpubSpec(chapters))


def test_every_entry_is_ratio_checked_whatever_its_size() -> None:
    data = _small_bomb()
    assert len(data) < 64 * 1024
    assert rejection_code(data) == "zip_bomb"


def test_the_budget_is_spent_while_inflating_across_entries() -> None:
    from services.ingest.documents.archive import open_zip

    data = build_epub(EpubSpec([Chapter(f"c{i}.xhtml", xhtml("<p>" + "word " * 2000 + "</p>"),
                                        f"C{i}") for i in range(4)]))
    limits = IngestLimits(max_total_uncompressed_bytes=25_000, max_zip_entries=100)
    with open_zip(data, IngestLimits()) as archive:  # the directory alone passes ...
        archive.limits = limits  # ... but reading every entry spends more than 25 kB
        with pytest.raises(DocumentRejection) as caught:
            for name in archive.namelist():
                archive.read(name)
    assert caught.value.code == "zip_too_large"
    assert archive.inflated <= 25_000 + 64 * 1024


def test_spine_and_chapter_sizes_are_bounded_before_parsing() -> None:
    """A document within the decompression budget could still be parsed whole
    (lxml trees take several times their text); the reader parsed any chapter size."""
    from services.ingest.documents.chapter import chapter_view
    from services.ingest.documents.epub import open_epub

    import random

    rng = random.Random(7)
    text = " ".join("".join(rng.choice("abcdefghij") for _ in range(6)) for _ in range(30_000))
    data = build_epub(EpubSpec([Chapter("c.xhtml", xhtml(f"<p>{text}</p>"), "C")]))
    assert rejection_code(data, IngestLimits(max_spine_bytes=100_000)) == "epub_too_large"
    package = open_epub(data, IngestLimits())
    with pytest.raises(DocumentRejection) as caught:
        chapter_view(package, package.spine[0].href, "d",
                     IngestLimits(max_chapter_bytes=100_000))
    assert caught.value.code == "chapter_too_large"
