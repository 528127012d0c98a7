"""The reader's EPUB chapter view: one spine item, sanitised, with prev/next hrefs."""

from __future__ import annotations

from typing import Any

from services.ingest.documents.epub import EpubPackage, open_epub
from services.ingest.documents.limits import DEFAULT_LIMITS, IngestLimits
from services.ingest.documents.rejection import DocumentRejection
from services.ingest.documents.sanitize import (
    chapter_path,
    clean_html,
    prune_chapter,
    resource_path,
    to_html,
)
from services.ingest.documents.xhtml import (
    body_of,
    document_title,
    first_heading,
    parse_document,
)

XHTML_TYPES = frozenset({"application/xhtml+xml", "text/html"})


def spine_index(package: EpubPackage, href: str) -> int:
    """The spine position of exactly `href`; anything else (traversal included) is refused."""
    for index, entry in enumerate(package.spine):
        if entry.href == href:
            if entry.media_type not in XHTML_TYPES:
                raise DocumentRejection(
                    "not_a_chapter", f"spine item {href!r} is {entry.media_type}, not XHTML"
                )
            return index
    raise DocumentRejection("href_not_in_spine", f"{href!r} is not a spine item of this EPUB")


def _direction(root: Any) -> dict[str, str]:
    """`dir`/`lang` declared on `<html>` or `<body>`, to keep right-to-left text right."""
    found: dict[str, str] = {}
    for element in (root, body_of(root)):
        for name in ("dir", "lang", "xml:lang", "{http://www.w3.org/XML/1998/namespace}lang"):
            value = element.get(name)
            if value and value.replace("-", "").isalnum():
                found["dir" if name == "dir" else "lang"] = value
    return found


def chapter_view(
    package: EpubPackage, href: str, doc_id: str, limits: IngestLimits = DEFAULT_LIMITS
) -> dict[str, Any]:
    """`{status, html, title, href, prev_href, next_href}` for one spine href."""
    index = spine_index(package, href)
    entry = package.spine[index]
    if len(entry.content) > limits.max_chapter_bytes:
        raise DocumentRejection(
            "chapter_too_large",
            f"chapter {href!r} is {len(entry.content)} bytes of XHTML (the reader shows "
            f"chapters of up to {limits.max_chapter_bytes})")
    root, _ = parse_document(entry.content)
    title = package.toc_titles.get(href) or first_heading(root) or document_title(root)
    attributes = _direction(root)
    body = body_of(root)
    prune_chapter(
        body, href, resource_path(doc_id), chapter_path(doc_id), package.resources,
        frozenset(item.href for item in package.spine),
    )
    html = clean_html(to_html(body))
    if attributes:
        wrapper = " ".join(f'{name}="{value}"' for name, value in sorted(attributes.items()))
        html = f"<div {wrapper}>{html}</div>"
    return {
        "status": "ok",
        "html": html,
        "title": title,
        "href": href,
        "prev_href": package.spine[index - 1].href if index > 0 else None,
        "next_href": package.spine[index + 1].href if index + 1 < len(package.spine) else None,
    }


def epub_chapter(
    data: bytes, href: str, doc_id: str, limits: IngestLimits = DEFAULT_LIMITS
) -> dict[str, Any]:
    """Open an EPUB (with every ingest check) and return the chapter view of `href`."""
    return chapter_view(open_epub(data, limits), href, doc_id)
