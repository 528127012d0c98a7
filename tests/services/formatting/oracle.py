"""Test oracles for rendered HTML: bleach with the renderer's own allow-list, and a
browser-style html5lib parse that looks for anything executable."""

from __future__ import annotations

import re
from urllib.parse import unquote

import bleach
import html5lib
from markdown_it import MarkdownIt

from services.formatting.allowlist import ATTRIBUTES, PROTOCOLS, TAGS

FORBIDDEN_ELEMENTS = frozenset(
    {
        "script",
        "style",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "form",
        "svg",
        "math",
        "base",
        "meta",
        "link",
        "img",
        "template",
        "noscript",
    }
)
URL_ATTRIBUTES = frozenset(
    {"href", "src", "action", "formaction", "xlink:href", "data"}
)
SCRIPTABLE_SCHEMES = ("javascript:", "vbscript:", "data:")
# What a browser ignores inside a URL scheme: whitespace and control characters.
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")
# Elements html5lib adds around a fragment.
_DOCUMENT_ELEMENTS = frozenset({"html", "head", "body"})


def bleach_clean(html: str) -> str:
    """`bleach.clean` with exactly the renderer's allow-list, escaping (not stripping)."""
    return bleach.clean(
        html, tags=TAGS, attributes=ATTRIBUTES, protocols=PROTOCOLS, strip=False
    )


def executable_findings(
    html: str, *, allowed_tags: frozenset[str] | None = None
) -> list[str]:
    """Everything executable a browser-style parse of `html` finds (empty when inert):
    forbidden elements, on* handlers, style attributes, scriptable URLs, and, when
    `allowed_tags` is given, any element outside it."""
    tree = html5lib.parse(html, namespaceHTMLElements=False)
    findings: list[str] = []
    for element in tree.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        local = tag.rsplit("}", 1)[-1].lower()
        if tag.startswith("{") or local in FORBIDDEN_ELEMENTS:
            findings.append(f"element <{tag}>")
        elif (
            allowed_tags is not None
            and local
            and local not in allowed_tags | _DOCUMENT_ELEMENTS
        ):
            findings.append(f"unexpected element <{tag}>")
        for name, value in element.attrib.items():
            attr = _attribute_name(name)
            if attr.startswith("on"):
                findings.append(f"handler {attr} on <{local}>")
            if attr == "style":
                findings.append(f"style attribute on <{local}>")
            if attr in URL_ATTRIBUTES or attr.endswith(":href"):
                scheme_part = _URL_NOISE.sub("", value).lower()
                if scheme_part.startswith(SCRIPTABLE_SCHEMES):
                    findings.append(f"scriptable URL {attr}={value!r} on <{local}>")
    return findings


def _attribute_name(name: str) -> str:
    """`{ns}local` (html5lib's foreign attributes) as `prefix:local`-ish lower-case."""
    if name.startswith("{"):
        namespace, local = name[1:].split("}", 1)
        return ("xlink:" if namespace.endswith("xlink") else "") + local.lower()
    return name.lower()


def _markdown_oracle() -> MarkdownIt:
    """CommonMark with raw HTML on and markdown-it's own link filter off, so any link
    or HTML the markdown can produce shows up; footnotes when the plugin is installed."""
    md = MarkdownIt("commonmark", {"html": True})
    md.validateLink = lambda url: True
    try:
        from mdit_py_plugins.footnote import footnote_plugin
    except ImportError:
        return md
    return md.use(footnote_plugin)


MARKDOWN = _markdown_oracle()


def markdown_findings(markdown: str, safe_urls: set[str]) -> list[str]:
    """What rendering `markdown` produces that it must not: anything executable, and any
    link other than an in-page anchor or one of `safe_urls`."""
    rendered = MARKDOWN.render(markdown)
    found = [f"markdown: {finding}" for finding in executable_findings(rendered)]
    allowed = {unquote(url) for url in safe_urls}
    tree = html5lib.parse(rendered, namespaceHTMLElements=False)
    for element in tree.iter():
        href = element.get("href")
        if (
            href is not None
            and not href.startswith("#")
            and unquote(href) not in allowed
        ):
            found.append(f"markdown links to {href!r}")
    return found
