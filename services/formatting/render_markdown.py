"""The markdown rendering: citation markers become footnote references (`[^N]`, N the
source index), the cited sources become footnote definitions at the end.

Answer text is escaped (`escape_markdown`) so a markdown renderer cannot be turned
against the reader: no link, image, raw HTML, autolink or reference definition can come
out of it, and the text right around a footnote reference cannot extend it into a link
(`[^1](javascript:...)`), a definition (`[^1]: ...`) or an image (`![^1]`). Definitions
are single escaped lines that can never parse as link reference definitions, and their
only link is a `safe_url` autolink.
"""

from __future__ import annotations

from schemas.formatted import FormattedSource
from services.formatting.escaping import escape_markdown, escape_markdown_line
from services.formatting.layout import AnswerLayout, is_linkable

# A character right after a footnote reference that would turn it into a link, a
# definition or a bracket pair, and its entity.
_AFTER_CHIP = {"(": "&#40;", ":": "&#58;"}


def render_markdown(layout: AnswerLayout) -> str:
    """The answer in markdown, with footnote references and definitions."""
    text = layout.text
    sources = layout.sources
    out: list[str] = []
    cursor = 0
    chip_before = False
    for marker in layout.markers:
        if marker.start > cursor:
            out.append(_piece(text[cursor:marker.start], chip_before))
        chip_before = False
        for citation in marker.citations:
            if is_linkable(citation, sources):
                if out and out[-1].endswith("!"):
                    out[-1] = out[-1][:-1] + "&#33;"
                out.append(f"[^{citation.source_index}]")
                chip_before = True
            else:
                out.append(f"\\[{citation.id}\\]")
                chip_before = False
        cursor = marker.end
    if len(text) > cursor:
        out.append(_piece(text[cursor:], chip_before))
    if layout.cited:
        out.append("\n\n")
        out.append("\n".join(_definition(sources[index]) for index in layout.cited))
        out.append("\n")
    return "".join(out)


def _piece(piece: str, chip_before: bool) -> str:
    escaped = escape_markdown(piece)
    if chip_before and escaped[0] in _AFTER_CHIP:
        return _AFTER_CHIP[escaped[0]] + escaped[1:]
    return escaped


def _definition(source: FormattedSource) -> str:
    """`[^N]: reference <url>`; a one-word body gets a leading label, so that the line
    can never be read as a link reference definition (`[^N]: destination`)."""
    body = escape_markdown_line(source.reference)
    if " " not in body:
        body = f"Source {source.index}. {body}"
    if source.safe_url:
        body = f"{body} <{source.safe_url}>"
    return f"[^{source.index}]: {body}"
