"""The sanitised EPUB chapter view: spine-only hrefs, bleach allow-list, safe resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import bleach
import html5lib
import pytest

from services.ingest.documents.chapter import epub_chapter
from services.ingest.documents.rejection import DocumentRejection
from services.ingest.documents.sanitize import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_PROTOCOLS,
    ALLOWED_TAGS,
)
from tests.browser import describe, inert_findings
from tests.services.ingest.documents.builders import (
    Chapter,
    EpubSpec,
    build_epub,
    xhtml,
)
from tests.xss_corpus import xss_payloads

HOSTILE = """
<h1 onclick="steal()">Title</h1>
<script>alert('inline')</script>
<script src="http://evil.example/x.js"></script>
<style>body { background: url(http://evil.example/bg.png) }</style>
<link rel="stylesheet" href="http://evil.example/s.css"/>
<p style="color:red" onmouseover="steal()">Styled <a href="javascript:alert(1)">js link</a>
 <a href="http://example.com/ok">web link</a> <a href="two.xhtml#n2">next chapter</a>
 <a href="#here">same chapter</a> <a href="../../../etc/passwd">escape</a></p>
<form action="http://evil.example/post"><input name="q"/><button>Go</button></form>
<iframe src="http://evil.example/frame"></iframe>
<object data="evil.swf"></object><embed src="evil.swf"/>
<img src="images/pic.png" alt="local" onerror="steal()"/>
<img src="http://evil.example/track.gif" alt="remote"/>
<img src="../../outside.png" alt="outside"/>
<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=" alt="data"/>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
  <image xlink:href="images/pic.png"/></svg>
<p id="here">Body text stays.</p>
"""


ENTITIES = '<!DOCTYPE html [<!ENTITY O "&#x201C;">]>'


def _book(doctype: str = "") -> bytes:
    chapters = [
        Chapter("text/one.xhtml", xhtml(HOSTILE, title="One", doctype=doctype), "Chapter One"),
        Chapter("text/two.xhtml", xhtml('<p id="n2">Second.</p>'), "Chapter Two"),
        Chapter("text/three.xhtml", xhtml("<h2>Third Heading</h2><p>Third.</p>")),
    ]
    return build_epub(EpubSpec(
        chapters, extra_files={"OEBPS/text/images/pic.png": b"\x89PNG fake"},
        extra_manifest=[("pic", "text/images/pic.png", "image/png")],
    ))


def _executable(html: str) -> list[str]:
    """Anything a browser-style parse would run or load: scripts, handlers, js: URLs."""
    found = []
    for element in html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=False).iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in {"script", "iframe", "object", "embed", "form", "style", "link", "base"}:
            found.append(tag)
        for name, value in element.attrib.items():
            if name.lower().startswith("on") or name.lower() == "style":
                found.append(name)
            if "javascript:" in value.lower().replace(" ", ""):
                found.append(value)
    return found


@pytest.mark.parametrize("doctype", ["", ENTITIES], ids=["html-parser", "xml-parser"])
def test_hostile_chapter_is_sanitised(doctype: str) -> None:
    view = epub_chapter(_book(doctype), "OEBPS/text/one.xhtml", "doc 1")
    html = view["html"]
    assert view["status"] == "ok" and view["title"] == "Chapter One"
    assert _executable(html) == []
    for gone in ("alert", "evil.example", "steal", "<input", "passwd", "data:", "background"):
        assert gone not in html
    assert "Body text stays." in html and "Title" in html
    resource = '/v1/documents/doc%201/resources/OEBPS/text/images/pic.png'
    assert html.count(f'src="{resource}"') == 2  # the <img> and the SVG cover image
    assert 'href="http://example.com/ok"' in html
    assert 'href="/v1/documents/doc%201/chapters/OEBPS/text/two.xhtml#n2"' in html
    assert 'href="#here"' in html
    assert bleach.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES,
                        protocols=ALLOWED_PROTOCOLS, strip=True) == html


def test_prev_next_and_title_fallback() -> None:
    data = _book()
    one = epub_chapter(data, "OEBPS/text/one.xhtml", "d")
    two = epub_chapter(data, "OEBPS/text/two.xhtml", "d")
    three = epub_chapter(data, "OEBPS/text/three.xhtml", "d")
    assert (one["prev_href"], one["next_href"]) == (None, "OEBPS/text/two.xhtml")
    assert (two["prev_href"], two["next_href"]) == ("OEBPS/text/one.xhtml", "OEBPS/text/three.xhtml")
    assert (three["next_href"], three["title"], three["href"]) == (
        None, "Third Heading", "OEBPS/text/three.xhtml")


@pytest.mark.parametrize("href", [
    "../../etc/passwd", "OEBPS/../META-INF/container.xml", "/OEBPS/text/one.xhtml",
    "OEBPS/text/./one.xhtml", "OEBPS/content.opf", "OEBPS/text/images/pic.png",
    "META-INF/container.xml", "text/one.xhtml", "OEBPS%2Ftext%2Fone.xhtml", "",
])
def test_hrefs_outside_the_spine_are_refused(href: str) -> None:
    with pytest.raises(DocumentRejection) as caught:
        epub_chapter(_book(), href, "d")
    assert caught.value.code == "href_not_in_spine"


def test_right_to_left_direction_is_kept() -> None:
    data = build_epub(EpubSpec([Chapter("ar.xhtml", xhtml(
        "<p>مرحبا بالعالم</p>", html_attrs='dir="rtl" xml:lang="ar"'), "ع")]))
    html = epub_chapter(data, "OEBPS/ar.xhtml", "d")["html"]
    assert html.startswith('<div dir="rtl" lang="ar">') and "مرحبا بالعالم" in html


def test_tag_names_lxml_refuses_leave_an_inert_chapter() -> None:
    # Not well-formed XML, so the HTML parser reads it and keeps the odd tag name, which
    # lxml refuses when a tag is renamed (this raised ValueError before).
    markup = "<html><body><p>a <script&s1&ts&1>alert(1)</script&s1&ts&1> b</p></body></html>"
    data = build_epub(EpubSpec([Chapter("x.xhtml", markup, "X")]))
    html = epub_chapter(data, "OEBPS/x.xhtml", "d")["html"]
    assert _executable(html) == []
    assert "<script" not in html and "a " in html


def test_xss_corpus_payloads_in_a_chapter() -> None:
    body = "".join(f"<div>{payload}</div>" for payload in xss_payloads())
    data = build_epub(EpubSpec([Chapter("x.xhtml", f"<html><body>{body}</body></html>", "X")]))
    html = epub_chapter(data, "OEBPS/x.xhtml", "d")["html"]
    assert _executable(html) == []
    assert bleach.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES,
                        protocols=ALLOWED_PROTOCOLS, strip=True) == html


def test_xss_corpus_payloads_in_a_chapter_run_nothing_in_a_real_browser(
    browser: Any, tmp_path: Path
) -> None:
    # The chapter as a reader gets it, on a page of headless Chromium (tests/browser.py).
    payloads = xss_payloads()
    body = "".join(f"<div>{payload}</div>" for payload in payloads)
    data = build_epub(EpubSpec([Chapter("x.xhtml", f"<html><body>{body}</body></html>", "X")]))
    html = epub_chapter(data, "OEBPS/x.xhtml", "d")["html"]
    findings = inert_findings(browser, [html], ALLOWED_TAGS, tmp_path / "page.html")
    assert not findings, describe(findings, ["chapter"])
