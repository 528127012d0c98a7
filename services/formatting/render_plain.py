"""The plain-text rendering: markers and markdown footnote definitions removed, the
whitespace they leave behind tidied, and an optional numbered reference list. The
answer's unsupported words can be marked as CriticMarkup highlights, `{==word==}`
(services.formatting.missing). Untrusted
text (the answer, the references) has its explicit directional controls shown as visible
tokens and its bidirectional marks dropped (`escaping.plain_bidi`)."""

from __future__ import annotations

from services.formatting.escaping import plain_bidi
from services.formatting.layout import AnswerLayout, cut
from services.formatting.missing import marked_cut
from services.formatting.sources import reference_link
from services.text.footnotes import footnote_definitions

_SPACES = " \t"
# What a space before it looks wrong: closing punctuation and the end of a line.
_CLOSING = frozenset(".,;:!?)]}\u2019\u201d\n")
_PAIRS = {")": "(", "]": "["}


def render_plain(layout: AnswerLayout, *, references: bool = True) -> str:
    """The answer without citation markers; where a marker was, no space is left before
    punctuation or a line end, no double space, and no bracket pair it alone filled.
    With `references`, the cited sources follow as `[N] reference url` lines."""
    definitions = footnote_definitions(layout.text)
    words = layout.missing if "plain" in layout.marked else []
    if definitions:
        pieces = _without_definitions(layout, definitions, words)
    elif words:
        pieces = marked_cut(layout.text, layout.markers.starts, layout.markers.ends, words)
    else:
        pieces = layout.pieces
    out = _without_markers(pieces)
    if not layout.clean:  # a clean text holds no bidirectional control
        out = [plain_bidi(part) for part in out]
    if definitions and not (references and layout.cited):
        out = ["".join(out).rstrip() + ("\n" if layout.text.endswith("\n") else "")]
    if references and layout.cited:
        out = ["".join(out).rstrip(), "\n\nReferences\n"]
        for index in layout.cited:
            before, link, after = reference_link(layout.sources[index])
            line = plain_bidi(" ".join((before + (link or "") + after).split()))
            out.append(f"[{index:d}] {line}\n")
    return "".join(out)


def _without_definitions(
    layout: AnswerLayout, definitions: list[tuple[int, int, str]],
    words: list[tuple[int, int]],
) -> list[str]:
    """The text pieces around the markers and the footnote definitions (each with its line
    break), the unsupported `words` marked: definitions are references, not answer text,
    and hold no marker."""
    text = layout.text
    cuts = list(zip(layout.markers.starts, layout.markers.ends, strict=True))
    for start, end, _label in definitions:
        end += text[end : end + 1] == "\n"
        # a paragraph of its own: the blank line after it goes too
        end += text[start - 2 : start] == "\n\n" and text[end : end + 1] == "\n"
        cuts.append((start, end))
    cuts.sort()
    starts, ends = [start for start, _ in cuts], [end for _, end in cuts]
    return marked_cut(text, starts, ends, words) if words else cut(text, starts, ends)


def _without_markers(pieces: list[str]) -> list[str]:
    """The text pieces around the markers joined up, each seam tidied: the parts of the
    text, in order, with nothing empty among them."""
    first = pieces[0]
    out = [first] if first else []
    last = len(pieces) - 1
    # One loop for every seam (rather than a call per seam): the text after a marker is
    # fitted to the last part so far, which is taken off `out` and put back tidied.
    for position in range(1, last + 1):
        piece = pieces[position]
        left = out.pop() if out else ""
        stripped = piece.lstrip(_SPACES)
        head = stripped[:1]
        opener = _PAIRS.get(head)
        if opener and left.rstrip(_SPACES).endswith(opener):
            left = left.rstrip(_SPACES)[:-1]
            stripped = stripped[1:].lstrip(_SPACES)
            piece = stripped
            head = stripped[:1]
        if head in _CLOSING or (not head and position == last):
            left = left.rstrip(_SPACES)
            piece = stripped
        elif not left or left[-1] in " \t\n":
            if left and left[-1] in _SPACES:
                left = left.rstrip(_SPACES) + " "
            piece = stripped
        if left:
            out.append(left)
        if piece:
            out.append(piece)
    return out
