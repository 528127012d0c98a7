"""Generated EPUB and PDF fixtures (built in code; no corpus file is copied)."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field

import pymupdf
from ebooklib import epub

XHTML_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n'


def xhtml(body: str, title: str = "", doctype: str = "", html_attrs: str = "") -> str:
    """An XHTML document with `body` as the inside of `<body>`."""
    return (
        f"{XHTML_HEAD}{doctype}<html xmlns=\"http://www.w3.org/1999/xhtml\" {html_attrs}>"
        f"<head><title>{title}</title></head><body>{body}</body></html>"
    )


@dataclass
class Chapter:
    """One spine document of a hand-built EPUB."""

    name: str
    content: str | bytes
    title: str | None = None
    linear: bool = True


@dataclass
class EpubSpec:
    """What `build_epub` writes: chapters, extra files, and the optional package parts."""

    chapters: list[Chapter]
    version: str = "3.0"
    opf_dir: str = "OEBPS"
    extra_files: dict[str, bytes] = field(default_factory=dict)
    extra_manifest: list[tuple[str, str, str]] = field(default_factory=list)
    with_container: bool = True
    with_opf: bool = True
    direction: str | None = None


def _nav(spec: EpubSpec) -> str:
    items = "".join(
        f'<li><a href="{c.name}">{c.title}</a></li>' for c in spec.chapters if c.title
    )
    return xhtml(
        f'<nav epub:type="toc" id="toc"><ol>{items}</ol></nav>',
        html_attrs='xmlns:epub="http://www.idpf.org/2007/ops"',
    )


def _ncx(spec: EpubSpec) -> str:
    points = "".join(
        f'<navPoint id="p{i}" playOrder="{i}"><navLabel><text>{c.title}</text></navLabel>'
        f'<content src="{c.name}"/></navPoint>'
        for i, c in enumerate(spec.chapters, start=1) if c.title
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">'
        '<head><meta name="dtb:uid" content="test"/></head><docTitle><text>T</text></docTitle>'
        f"<navMap>{points}</navMap></ncx>"
    )


def _opf(spec: EpubSpec) -> str:
    manifest = "".join(
        f'<item id="c{i}" href="{c.name}" media-type="application/xhtml+xml"/>'
        for i, c in enumerate(spec.chapters)
    )
    manifest += "".join(
        f'<item id="{item_id}" href="{href}" media-type="{media}"/>'
        for item_id, href, media in spec.extra_manifest
    )
    if spec.version.startswith("3"):
        manifest += ('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" '
                     'properties="nav"/>')
    manifest += '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
    non_linear = ' linear="no"'
    spine = "".join(
        f'<itemref idref="c{i}"{"" if c.linear else non_linear}/>'
        for i, c in enumerate(spec.chapters)
    )
    direction = f' page-progression-direction="{spec.direction}"' if spec.direction else ""
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package xmlns="http://www.idpf.org/2007/opf" version="{spec.version}" '
        'unique-identifier="uid"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        '<dc:identifier id="uid">urn:test:1</dc:identifier><dc:title>Generated Book</dc:title>'
        '<dc:language>en</dc:language></metadata>'
        f'<manifest>{manifest}</manifest><spine toc="ncx"{direction}>{spine}</spine></package>'
    )


def build_epub(spec: EpubSpec) -> bytes:
    """A hand-built EPUB zip (full control over markup, DTDs, and broken parts)."""
    buffer = io.BytesIO()
    base = f"{spec.opf_dir}/" if spec.opf_dir else ""
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip",
                         compress_type=zipfile.ZIP_STORED)
        if spec.with_container:
            archive.writestr(
                "META-INF/container.xml",
                '<?xml version="1.0"?><container version="1.0" '
                'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                f'<rootfile full-path="{base}content.opf" '
                'media-type="application/oebps-package+xml"/></rootfiles></container>',
            )
        if spec.with_opf:
            archive.writestr(f"{base}content.opf", _opf(spec))
        if spec.version.startswith("3"):
            archive.writestr(f"{base}nav.xhtml", _nav(spec))
        archive.writestr(f"{base}toc.ncx", _ncx(spec))
        for chapter in spec.chapters:
            archive.writestr(f"{base}{chapter.name}", chapter.content)
        for name, data in spec.extra_files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def ebooklib_epub(chapters: list[tuple[str, str, str]]) -> bytes:
    """An EPUB 3 written by ebooklib itself: (file name, title, body html) per chapter."""
    book = epub.EpubBook()
    book.set_identifier("urn:test:ebooklib")
    book.set_title("Written By Ebooklib")
    book.set_language("en")
    items = []
    for name, title, body in chapters:
        item = epub.EpubHtml(title=title, file_name=name, lang="en")
        item.content = f"<html><body>{body}</body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = [epub.Link(item.file_name, item.title, item.id) for item in items]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = items
    buffer = io.BytesIO()
    epub.write_epub(buffer, book)
    return buffer.getvalue()


def zip_bytes(entries: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A plain zip with the given entries."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def build_pdf(pages: list[list[str]], rotations: dict[int, int] | None = None,
              blank: frozenset[int] = frozenset(), **save: object) -> bytes:
    """A PDF with one page per list of lines (Helvetica 11pt); `blank` pages get an image
    only (no text layer); `rotations` maps 0-based page index to /Rotate."""
    document = pymupdf.open()
    for index, lines in enumerate(pages):
        page = document.new_page(width=400, height=500)
        if index in blank:
            pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
            pixmap.set_rect(pixmap.irect, (200, 200, 200))
            page.insert_image(pymupdf.Rect(50, 50, 350, 450), pixmap=pixmap)
        else:
            for number, line in enumerate(lines):
                page.insert_text((40, 60 + 16 * number), line, fontsize=11)
        if rotations and index in rotations:
            page.set_rotation(rotations[index])
    data = document.tobytes(**save)
    document.close()
    return data
