"""The HTML renderer's allow-list, written once as a bleach configuration.

It is the single source of what `render_html` may emit: the renderer builds its
tags through `start_tag`, which refuses any tag or attribute not listed here, and
the tests hand the same three values to `bleach.clean` as the oracle.
"""

from __future__ import annotations

from html import escape

TAGS: frozenset[str] = frozenset({"div", "span", "sup", "a", "br", "ol", "li", "cite", "bdi"})

ATTRIBUTES: dict[str, list[str]] = {
    "div": ["class", "data-answer-id", "dir", "lang"],
    "span": [
        "class",
        "title",
        "role",
        "tabindex",
        "data-unit-id",
        "data-kind",
        "data-source-index",
        "data-doc-id",
        "data-section-id",
        "data-chunk-id",
        "data-span-start",
        "data-span-end",
        "data-span-count",
    ],
    "sup": [
        "class",
        "dir",
        "title",
        "data-citation-id",
        "data-source-index",
        "data-valid",
    ],
    "a": [
        "class",
        "dir",
        "href",
        "title",
        "rel",
        "target",
        "data-citation-id",
        "data-source-index",
        "data-valid",
    ],
    "ol": ["class"],
    "li": ["class", "id", "value", "data-source-index"],
    "cite": ["class"],
}

PROTOCOLS: frozenset[str] = frozenset({"http", "https", "mailto"})

LINK_REL = "noopener noreferrer nofollow"


def start_tag(
    tag: str, attributes: dict[str, str | type[int] | None] | None = None
) -> str:
    """`<tag name="value" ...>` as a printf-style template.

    A value of None becomes a `%s` field (in attribute order) for escaped text, `int` a
    `%d` field (a number: anything else fails loudly instead of being emitted); any other
    value is a fixed literal. Raises ValueError for a tag or attribute outside the
    allow-list, so every template the renderer builds (at import) is checked against it.
    """
    if tag not in TAGS:
        raise ValueError(f"tag {tag!r} is not in the allow-list")
    allowed = ATTRIBUTES.get(tag, [])
    parts = [f"<{tag}"]
    for name, value in (attributes or {}).items():
        if name not in allowed:
            raise ValueError(f"attribute {name!r} of <{tag}> is not in the allow-list")
        if value is None:
            field = "%s"
        elif value is int:
            field = "%d"
        else:
            field = escape(str(value), quote=True).replace("%", "%%")
        parts.append(f' {name}="{field}"')
    parts.append(">")
    return "".join(parts)


def end_tag(tag: str) -> str:
    """`</tag>` for an allowed tag."""
    if tag not in TAGS:
        raise ValueError(f"tag {tag!r} is not in the allow-list")
    return f"</{tag}>"
