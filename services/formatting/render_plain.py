"""The plain-text rendering: markers removed, the whitespace they leave behind tidied,
and an optional numbered reference list."""

from __future__ import annotations

from services.formatting.layout import AnswerLayout
from services.formatting.sources import reference_link

_SPACES = " \t"
# What a space before it looks wrong: closing punctuation and the end of a line.
_CLOSING = frozenset(".,;:!?)]}\u2019\u201d\n")
_PAIRS = {")": "(", "]": "["}


def render_plain(layout: AnswerLayout, *, references: bool = True) -> str:
    """The answer without citation markers; where a marker was, no space is left before
    punctuation or a line end, no double space, and no bracket pair it alone filled.
    With `references`, the cited sources follow as `[N] reference url` lines."""
    out = _without_markers(layout.pieces)
    if references and layout.cited:
        out = ["".join(out).rstrip(), "\n\nReferences\n"]
        for index in layout.cited:
            before, link, after = reference_link(layout.sources[index])
            line = " ".join((before + (link or "") + after).split())
            out.append(f"[{index:d}] {line}\n")
    return "".join(out)


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
