"""Real documents for a demo answer, built from the answer's own sources at start-up.

The demo answer cites an EPUB (by spine href) and a PDF (by page) that exist nowhere as
files. So that every chip of the demo lands on a real highlight, `demo_documents` writes
them: an EPUB 3 with one XHTML chapter per cited href, and a PDF with the cited pages, each
holding its chunks' text placed at their offsets (paragraphs kept). They are uploaded
through the gateway (`services.gateway.documents.demo`), so ingest, the store sink and the
reader treat them as any upload. Nothing binary is committed: the documents are generated
from the JSON every time.
"""

from __future__ import annotations

import io
import uuid
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

import pymupdf

PAGE_MARGIN = 54


@dataclass(frozen=True)
class DemoDocument:
    doc_id: str
    fmt: str
    title: str
    data: bytes


def _section_text(chunks: Iterable[Mapping[str, Any]]) -> str:
    """Chunks placed at their `start_char` (overlaps agree), then unplaced chunks after."""
    text = ""
    loose = []
    for chunk in sorted(chunks, key=lambda c: (c.get("start_char") is None,
                                                c.get("start_char") or 0)):
        start = chunk.get("start_char")
        if start is None:
            loose.append(chunk["text"])
            continue
        text = text[:start].ljust(start) + chunk["text"] + text[start + len(chunk["text"]):]
    for piece in loose:
        if piece not in text:
            text = f"{text}\n\n{piece}" if text else piece
    return text


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{escape(part.strip())}</p>" for part in text.split("\n\n")
                   if part.strip())


class _Fixed:
    """Zip entries with a fixed time: the same chapters give the same bytes (and digest), so
    a second start-up uploads nothing new."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive

    def writestr(self, name: str, data: str) -> None:
        info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
        if name != "mimetype":
            info.compress_type = zipfile.ZIP_DEFLATED
        self.archive.writestr(info, data)


def _epub(title: str, chapters: dict[str, str]) -> bytes:
    """An EPUB 3 whose spine is `chapters` (full container href -> text)."""
    folder = "OPS"
    identifier = uuid.uuid5(uuid.NAMESPACE_URL, title)
    items, spine, nav = [], [], []
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        archive = _Fixed(zipped)
        archive.writestr("mimetype", "application/epub+zip")
        archive.writestr("META-INF/container.xml", (
            '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
            f'opendocument:xmlns:container"><rootfiles><rootfile full-path="{folder}/'
            'package.opf" media-type="application/oebps-package+xml"/></rootfiles>'
            '</container>'))
        for number, (href, text) in enumerate(sorted(chapters.items()), start=1):
            relative = href.removeprefix(f"{folder}/")
            items.append(f'<item id="c{number}" href="{escape(relative)}" '
                         'media-type="application/xhtml+xml"/>')
            spine.append(f'<itemref idref="c{number}"/>')
            nav.append(f'<li><a href="{escape(relative)}">Chapter {number}</a></li>')
            archive.writestr(href, (
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/'
                f'xhtml"><head><title>{escape(title)}</title></head><body>'
                f'{_paragraphs(text)}</body></html>'))
        archive.writestr(f"{folder}/nav.xhtml", (
            '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
            'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>'
            f'<body><nav epub:type="toc"><ol>{"".join(nav)}</ol></nav></body></html>'))
        archive.writestr(f"{folder}/package.opf", (
            '<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/'
            'opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/'
            f'dc/elements/1.1/"><dc:identifier id="id">urn:uuid:{identifier}'
            f'</dc:identifier><dc:title>{escape(title)}</dc:title><dc:language>en'
            '</dc:language></metadata><manifest><item id="nav" href="nav.xhtml" '
            f'media-type="application/xhtml+xml" properties="nav"/>{"".join(items)}'
            f'</manifest><spine>{"".join(spine)}</spine></package>'))
    return buffer.getvalue()


def _pdf(title: str, pages: dict[int, str]) -> bytes:
    """A PDF with `max(pages)` pages, each cited page holding its text."""
    document = pymupdf.open()
    for number in range(1, max(pages) + 1):
        page = document.new_page()
        box = pymupdf.Rect(PAGE_MARGIN, PAGE_MARGIN, page.rect.width - PAGE_MARGIN,
                           page.rect.height - PAGE_MARGIN)
        body = _paragraphs(pages.get(number, ""))
        page.insert_htmlbox(box, f"<h3>{escape(title)}, page {number}</h3>{body}")
    document.set_metadata({"title": title, "creationDate": "", "modDate": ""})
    data = document.tobytes(no_new_id=True)
    document.close()
    return bytes(data)


def demo_documents(answer: Mapping[str, Any]) -> list[DemoDocument]:
    """The EPUB and PDF documents an answer's sources cite (by doc_id), built from them."""
    grouped: dict[str, tuple[str, str, dict[Any, list[Mapping[str, Any]]]]] = {}
    for source in answer.get("sources") or []:
        fmt, doc_id = source.get("format"), source.get("doc_id")
        if fmt not in ("epub", "pdf") or not doc_id:
            continue
        _, _, places = grouped.setdefault(doc_id, (fmt, source.get("title") or doc_id, {}))
        for chunk in source.get("chunks") or []:
            place = chunk.get("href") if fmt == "epub" else chunk.get("page")
            if place:
                places.setdefault(place, []).append(chunk)
    documents = []
    for doc_id, (fmt, title, places) in grouped.items():
        texts = {place: _section_text(chunks) for place, chunks in places.items()}
        if texts:
            data = _epub(title, texts) if fmt == "epub" else _pdf(title, texts)
            documents.append(DemoDocument(doc_id, fmt, title, data))
    return documents
