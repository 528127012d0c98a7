"""EPUB containers (EPUB 2 and 3) read with ebooklib: spine, titles, resources.

Spine hrefs are full paths inside the container (e.g. `OPS/chapter_001.xhtml`), the same
namespace as resource paths, so a href is unambiguous whatever the OPF's folder.
"""

from __future__ import annotations

import posixpath
import zipfile
import zlib
from dataclasses import dataclass, replace
from urllib.parse import unquote

from ebooklib import epub
from lxml import etree

from services.ingest.documents.archive import open_zip
from services.ingest.documents.limits import IngestLimits
from services.ingest.documents.problems import problem
from services.ingest.documents.rejection import DocumentRejection
from services.ingest.documents.xhtml import collapse_spaces

CONTAINER = "META-INF/container.xml"
ENCRYPTION = "META-INF/encryption.xml"
RIGHTS = "META-INF/rights.xml"
OPF_NS = "http://www.idpf.org/2007/opf"
CONTAINER_NS = "urn:oasis:names:tc:opendocument:xmlns:container"
ENC_NS = "http://www.w3.org/2001/04/xmlenc#"
# Font obfuscation (IDPF and Adobe) is declared in encryption.xml but is not DRM.
FONT_OBFUSCATION = frozenset({"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"})
# Corrupt entries (bad CRC, bad deflate data, truncated, unknown method) while reading.
_ZIP_FAILURES = (
    zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError,
)
# What ebooklib raises on packages it cannot make sense of (missing parts, bad XML ...).
_EBOOKLIB_FAILURES = (
    epub.EpubException, KeyError, AttributeError, IndexError, TypeError, ValueError,
    etree.LxmlError, *_ZIP_FAILURES,
)
_BINARY_SUFFIXES = (
    ".jpg", ".jpeg", ".png", ".gif", ".webp", ".svgz", ".otf", ".ttf", ".woff", ".woff2",
    ".mp3", ".mp4", ".m4a", ".ogg", ".webm", ".wav",
)


@dataclass(frozen=True)
class SpineEntry:
    """One spine item: its full href, manifest id, linearity, media type and raw bytes."""

    href: str
    idref: str
    linear: bool
    media_type: str
    content: bytes


@dataclass(frozen=True)
class EpubPackage:
    """What ingest and the chapter view need from an EPUB."""

    title: str | None
    spine: list[SpineEntry]
    resources: frozenset[str]
    toc_titles: dict[str, str]
    problems: list[str]
    inflated_bytes: int = 0  # what reading it inflated (the reader's caches weigh by it)


def join_href(base_dir: str, href: str) -> str:
    """`href` (relative, percent-encoded, maybe with a fragment) as a full container path."""
    path = href.split("#", 1)[0]
    if "%" in path:
        path = unquote(path)
    return posixpath.normpath(posixpath.join(base_dir, path)) if path else ""


def _xml(data: bytes, what: str) -> etree._Element:
    """A package XML file parsed with no entities, DTDs or network (a parser per call:
    lxml parsers must not be shared across threads)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise DocumentRejection("invalid_epub", f"{what} is not well-formed XML: {exc}") from None


def _check_encryption(archive: zipfile.ZipFile, names: set[str]) -> list[str]:
    """Reject DRM; font obfuscation alone is a problem note, not a rejection."""
    if RIGHTS in names:
        raise DocumentRejection("drm_protected", "the EPUB carries META-INF/rights.xml (DRM)")
    if ENCRYPTION not in names:
        return []
    root = _xml(archive.read(ENCRYPTION), ENCRYPTION)
    algorithms = {
        method.get("Algorithm", "")
        for method in root.iter(f"{{{ENC_NS}}}EncryptionMethod")
    }
    if not algorithms or not algorithms <= FONT_OBFUSCATION:
        raise DocumentRejection(
            "drm_protected", "the EPUB declares encrypted content in META-INF/encryption.xml (DRM)"
        )
    return [problem("fonts_obfuscated", "embedded fonts are obfuscated; text is unaffected")]


def _opf_path(archive: zipfile.ZipFile, names: set[str]) -> str:
    if CONTAINER not in names:
        raise DocumentRejection("missing_container", f"the EPUB has no {CONTAINER}")
    root = _xml(archive.read(CONTAINER), CONTAINER)
    for rootfile in root.iter(f"{{{CONTAINER_NS}}}rootfile"):
        if rootfile.get("media-type") == "application/oebps-package+xml":
            path = rootfile.get("full-path") or ""
            if path in names:
                return path
            raise DocumentRejection("missing_opf", f"the package document {path!r} is missing")
    raise DocumentRejection("missing_opf", f"{CONTAINER} names no package document")


def _toc_titles(book: epub.EpubBook, base_dir: str) -> dict[str, str]:
    """Spine href -> the first title the nav/NCX gives for it (depth first, in order)."""
    titles: dict[str, str] = {}

    def walk(entries: list) -> None:
        for entry in entries:
            node, children = entry if isinstance(entry, tuple) else (entry, [])
            href = getattr(node, "href", None)
            title = collapse_spaces(getattr(node, "title", None) or "")
            if href and title:
                titles.setdefault(join_href(base_dir, href), title)
            walk(children)

    walk(book.toc or [])
    return titles


class _CheckedReader(epub.EpubReader):
    """ebooklib's reader over our already checked ZipFile, not inflating binary resources
    (fonts, images, media: ingest needs only their names, which the manifest gives)."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        super().__init__("", {"ignore_ncx": True})
        self.zf = archive

    def _load(self) -> None:
        self._load_container()
        self._load_opf_file()

    def read_file(self, name: str) -> bytes:
        if name.lower().endswith(_BINARY_SUFFIXES):
            return b""
        return super().read_file(name)


def _load_book(archive: zipfile.ZipFile) -> tuple[epub.EpubBook, epub.EpubReader]:
    reader = _CheckedReader(archive)
    try:
        return reader.load(), reader
    except _EBOOKLIB_FAILURES as exc:
        raise DocumentRejection(
            "invalid_epub", f"the EPUB package is unreadable: {type(exc).__name__}: {exc}"
        ) from None


def open_epub(data: bytes, limits: IngestLimits) -> EpubPackage:
    """Check and read an EPUB; raises DocumentRejection with the reason when it is refused."""
    with open_zip(data, limits) as archive:
        try:
            package = _read_package(archive, limits)
            return replace(package, inflated_bytes=archive.inflated)
        except _ZIP_FAILURES as exc:
            raise DocumentRejection(
                "invalid_epub", f"a zip entry is corrupt: {type(exc).__name__}: {exc}"
            ) from None


def _read_package(archive: zipfile.ZipFile, limits: IngestLimits) -> EpubPackage:
    names = set(archive.namelist())
    problems = _check_encryption(archive, names)
    opf_path = _opf_path(archive, names)
    book, reader = _load_book(archive)
    opf_dir = posixpath.dirname(opf_path)
    manifest = reader.container.find(f"{{{OPF_NS}}}manifest")
    items = {
        item.get("id"): (join_href(opf_dir, item.get("href") or ""), item.get("media-type", ""))
        for item in (manifest if manifest is not None else [])
        if item.get("id")
    }
    loaded = {item.id: item for item in book.get_items() if item.id}
    spine: list[SpineEntry] = []
    for idref, linear in book.spine:
        if idref not in items:
            problems.append(problem(
                "spine_item_missing", f"spine idref {idref!r} is not in the manifest"))
            continue
        href, media_type = items[idref]
        item = loaded.get(idref)
        content = item.content if item is not None and item.content else archive.read(href)
        spine.append(SpineEntry(href, idref, linear != "no", media_type, content))
    if not spine:
        raise DocumentRejection("empty_spine", "the EPUB spine has no readable items")
    spine_bytes = sum(len(entry.content) for entry in spine)
    if spine_bytes > limits.max_spine_bytes:
        raise DocumentRejection(
            "epub_too_large",
            f"the spine's XHTML is {spine_bytes} bytes (limit {limits.max_spine_bytes})")
    nav = next((i for i in book.get_items() if isinstance(i, epub.EpubNav)), None)
    if nav is not None:
        toc_base = opf_dir
    else:
        ncx = next((i for i in book.get_items() if isinstance(i, epub.EpubNcx)), None)
        toc_base = posixpath.join(opf_dir, posixpath.dirname(ncx.file_name)) if ncx else opf_dir
    return EpubPackage(
        title=(collapse_spaces(book.title) or None) if book.title else None,
        spine=spine,
        resources=frozenset(href for href, _ in items.values()),
        toc_titles=_toc_titles(book, toc_base),
        problems=problems,
    )
