"""The markdown rendering: citation markers become footnote references (`[^N]`, N the
source index), the cited sources become footnote definitions at the end.

Answer text is escaped (`escape_markdown`) so a markdown renderer cannot be turned
against the reader: no link, image, raw HTML, autolink or reference definition can come
out of it, and the text right around a footnote reference cannot extend it into a link
(`[^1](javascript:...)`), a definition (`[^1]: ...`) or an image (`![^1]`). Definitions
are single escaped lines that can never parse as link reference definitions, and their
only link is a `safe_url` autolink. The answer's unsupported words can be marked as
CriticMarkup highlights, `{==word==}` (services.formatting.missing).
"""

from __future__ import annotations

from itertools import repeat

from schemas.formatted import FormattedSource
from services.formatting.escaping import escape_markdown_lines, escape_markdown_many
from services.formatting.layout import AnswerLayout, CitationKey, is_linkable
from services.formatting.missing import marked_cut
from services.formatting.sources import reference_link

# A character right after a footnote reference that would turn it into a link, a
# definition or a bracket pair, and its entity.
_AFTER_CHIP = {"(": "&#40;", ":": "&#58;"}
_AFTER_CHIP_HEADS = tuple(_AFTER_CHIP)


def render_markdown(layout: AnswerLayout) -> str:
    """The answer in markdown, with footnote references and definitions."""
    sources = layout.sources
    groups = layout.markers.groups
    chip_of = {group: _chips(group, sources) for group in dict.fromkeys(groups)}
    if layout.direction == "rtl":  # each marker isolated left to right (LRI ... PDI)
        chip_of = {group: (f"\u2066{chip}\u2069", linked) for group, (chip, linked) in chip_of.items()}
    chips = list(map(chip_of.__getitem__, groups))
    raw = layout.pieces
    if layout.missing and "markdown" in layout.marked:
        raw = marked_cut(layout.text, layout.markers.starts, layout.markers.ends,
                         layout.missing)
    pieces = escape_markdown_many(raw, clean=layout.clean)
    # Escaping keeps a piece's first and last character when it is `(`, `:` or `!`, so
    # the raw pieces tell (in C loops) whether any seam needs guarding.
    if any(map(str.startswith, raw[1:], repeat(_AFTER_CHIP_HEADS))) or any(
        map(str.endswith, raw[:-1], repeat("!"))
    ):
        pieces = _guarded(pieces, chips)
    out = [""] * (2 * len(chips) + 1)
    out[0::2] = pieces
    out[1::2] = [chip for chip, _ in chips]
    if layout.cited:
        out.append("\n\n")
        out.append("\n".join(_definitions([sources[index] for index in layout.cited])))
        out.append("\n")
    return "".join(out)


def _guarded(pieces: list[str], chips: list[tuple[str, bool]]) -> list[str]:
    """The escaped pieces with the text around each footnote reference kept from
    extending it: a `(` or `:` right after one and a `!` right before one as entities."""
    guarded = []
    linked_before = False
    for position, piece in enumerate(pieces):
        if linked_before and piece and piece[0] in _AFTER_CHIP:
            piece = _AFTER_CHIP[piece[0]] + piece[1:]
        if position < len(chips):
            chip, linked_before = chips[position]
            if piece.endswith("!") and chip.startswith("[^"):
                piece = piece[:-1] + "&#33;"
        guarded.append(piece)
    return guarded


def _chips(
    group: tuple[CitationKey, ...], sources: dict[int, FormattedSource]
) -> tuple[str, bool]:
    """The markdown of one marker's citations, and whether it ends with a footnote
    reference (which the text after it must not extend)."""
    parts = []
    linked = False
    for key in group:
        linked = is_linkable(key, sources)
        # `:d`: a number, never text that could carry markup
        parts.append(f"[^{key[1]:d}]" if linked else f"\\[{key[0]:d}\\]")
    return "".join(parts), linked


def _definitions(cited: list[FormattedSource]) -> list[str]:
    """`[^N]: reference` per cited source, its link as an autolink. A body without a
    space gets a leading label, so that no line can be read as a link reference
    definition (`[^N]: destination`)."""
    links = [reference_link(source) for source in cited]
    escaped = escape_markdown_lines(
        [part for before, _, after in links for part in (before, after)]
    )
    lines = []
    for position, source in enumerate(cited):
        before, link, _ = links[position]
        body = escaped[2 * position]
        if link:
            space = " " if before[-1:].isspace() else ""
            body = f"{body}{space}<{link}>{escaped[2 * position + 1]}"
        if " " not in body:
            body = f"Source {source.index:d}. {body}"
        lines.append(f"[^{source.index:d}]: {body}")
    return lines
