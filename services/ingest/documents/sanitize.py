"""Sanitising EPUB chapter HTML for readers (seed 001's bleach allow-list).

Untrusted chapter markup is first pruned structurally with lxml (scripts, styles, forms,
embedded objects and media dropped with their content; images pointed at the safe
resource endpoint or removed; links kept only when they stay in the book or are
http(s)/mailto), then cleaned with bleach as the final word on tags, attributes and
protocols. `dir` and `lang` are allowed beyond the seed's list so right-to-left text
renders right.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from urllib.parse import quote, unquote, urlsplit

import bleach
from lxml import etree

ALLOWED_TAGS = frozenset({
    "p", "div", "span", "h1", "h2", "h3", "h4", "h5", "h6",
    "ul", "ol", "li", "a", "em", "strong", "b", "i", "u",
    "blockquote", "pre", "code", "br", "hr", "img", "table",
    "thead", "tbody", "tr", "th", "td", "figure", "figcaption",
})
ALLOWED_ATTRIBUTES = {
    "*": ["class", "id", "dir", "lang"],
    "a": ["href", "title"],
    "img": ["src", "alt", "title"],
}
ALLOWED_PROTOCOLS = frozenset({"http", "https", "mailto"})
# Dropped with everything inside them (bleach would keep their text).
DROPPED_TAGS = frozenset({
    "script", "style", "noscript", "template", "iframe", "frame", "frameset", "object",
    "embed", "applet", "form", "input", "button", "select", "textarea", "option", "link",
    "meta", "base", "audio", "video", "source", "track", "canvas", "math", "head", "title",
})
SVG_NS = "http://www.w3.org/2000/svg"
# Namespaced attributes as the XML parser names them and as the HTML parser keeps them.
LANG_ATTRIBUTES = ("{http://www.w3.org/XML/1998/namespace}lang", "xml:lang")
IMAGE_HREFS = ("{http://www.w3.org/1999/xlink}href", "xlink:href", "href")


def local_name(element: etree._Element) -> str:
    """The tag without its namespace."""
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _strip_namespaces(root: etree._Element) -> None:
    """Plain HTML names: `{xhtml}p` -> `p`, `xml:lang` -> `lang`, other namespaced
    attributes (epub:type, xmlns ...) removed. An element whose local name lxml refuses as
    an HTML tag (hostile markup such as `<script&x>`) is dropped with its content."""
    for element in list(root.iter(etree.Element)):
        tag = local_name(element)
        if tag != element.tag:
            try:
                element.tag = tag
            except ValueError:
                _drop(element)
                continue
        for name in [name for name in element.attrib if name.startswith("{") or ":" in name
                     or name == "xmlns"]:
            value = element.attrib.pop(name)
            if name in LANG_ATTRIBUTES and "lang" not in element.attrib:
                element.set("lang", value)


def _svg_images_to_img(root: etree._Element) -> None:
    """`<svg><image xlink:href=...>` (how covers are drawn) becomes a plain `<img>`."""
    for svg in list(root.iter("svg", f"{{{SVG_NS}}}svg")):
        image = next((node for node in svg.iter("image", f"{{{SVG_NS}}}image")), None)
        href = None if image is None else next(
            (image.get(name) for name in IMAGE_HREFS if image.get(name)), None)
        if href:
            img = etree.Element("img", src=href, alt="")
            img.tail = svg.tail
            svg.getparent().replace(svg, img)


def _drop(element: etree._Element) -> None:
    """Remove an element with its content, keeping the text after it."""
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def resolve_in_book(chapter_href: str, reference: str) -> tuple[str, str] | None:
    """A relative reference from a chapter as (full container path, fragment), or None
    when it has a scheme or host, or leaves the container."""
    parts = urlsplit(reference)
    if parts.scheme or parts.netloc:
        return None
    if not parts.path:
        return chapter_href, parts.fragment
    path = posixpath.normpath(posixpath.join(posixpath.dirname(chapter_href), unquote(parts.path)))
    if path.startswith(("../", "/")) or path == "..":
        return None
    return path, parts.fragment


def prune_chapter(
    body: etree._Element,
    chapter_href: str,
    resource_url: Callable[[str], str],
    chapter_url: Callable[[str], str],
    resources: frozenset[str],
    spine: frozenset[str],
) -> None:
    """Structural clean-up of a chapter body before bleach (see the module docstring)."""
    _svg_images_to_img(body)
    _strip_namespaces(body)
    for element in [e for e in body.iter(etree.Element) if e.tag in DROPPED_TAGS or e.tag == "svg"]:
        _drop(element)
    for pre in body.iter("pre"):
        # HTML parsers drop a newline right after <pre>: drop it here so output is stable.
        if pre.text:
            pre.text = pre.text.lstrip("\n")
    for img in list(body.iter("img")):
        target = resolve_in_book(chapter_href, img.get("src", ""))
        if target is None or target[0] not in resources:
            _drop(img)
        else:
            img.set("src", resource_url(target[0]))
    for link in body.iter("a"):
        href = link.get("href")
        if href is None:
            continue
        scheme = urlsplit(href).scheme.lower()
        if scheme in ALLOWED_PROTOCOLS:
            continue
        target = resolve_in_book(chapter_href, href)
        if target is None or target[0] not in spine:
            del link.attrib["href"]
        elif target[0] == chapter_href:
            link.set("href", f"#{target[1]}" if target[1] else "#")
        else:
            link.set("href", chapter_url(target[0]) + (f"#{quote(target[1])}" if target[1] else ""))


def to_html(body: etree._Element) -> str:
    """The inner HTML of a pruned body."""
    inner = [body.text or ""]
    inner.extend(etree.tostring(child, method="html", encoding="unicode") for child in body)
    return "".join(inner)


def clean_html(html: str) -> str:
    """bleach with the allow-list: disallowed tags stripped, attributes and protocols filtered."""
    return bleach.clean(
        html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, protocols=ALLOWED_PROTOCOLS,
        strip=True, strip_comments=True,
    )


def resource_path(doc_id: str) -> Callable[[str], str]:
    """The safe resource endpoint for images of one document (the gateway's route)."""
    prefix = f"/v1/documents/{quote(doc_id, safe='')}/resources/"
    return lambda path: prefix + quote(path, safe="/")


def chapter_path(doc_id: str) -> Callable[[str], str]:
    """The chapter endpoint for in-book links of one document (the gateway's route)."""
    prefix = f"/v1/documents/{quote(doc_id, safe='')}/chapters/"
    return lambda href: prefix + quote(href, safe="/")
