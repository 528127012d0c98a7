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
    text = layout.text
    markers = layout.markers
    if not markers:
        out = [text]
    else:
        first = text[: markers[0].start]
        out = [first] if first else []
        last = len(markers) - 1
        for position, marker in enumerate(markers):
            end = markers[position + 1].start if position < last else len(text)
            _join(out, text[marker.end : end], final=position == last)
    if references and layout.cited:
        out = ["".join(out).rstrip(), "\n\nReferences\n"]
        for index in layout.cited:
            source = layout.sources[index]
            before, link, after = reference_link(source)
            line = " ".join((before + (link or "") + after).split())
            out.append(f"[{index:d}] {line}\n")
    return "".join(out)


def _join(out: list[str], piece: str, *, final: bool) -> None:
    """Append the text that followed a removed marker, tidying the seam with the text
    before it (the last item of `out`)."""
    left = out.pop() if out else ""
    stripped = piece.lstrip(_SPACES)
    opener = _PAIRS.get(stripped[:1])
    if opener and left.rstrip(_SPACES).endswith(opener):
        left = left.rstrip(_SPACES)[:-1]
        stripped = stripped[1:].lstrip(_SPACES)
        piece = stripped
    head = stripped[:1]
    if head in _CLOSING or (final and not head):
        left = left.rstrip(_SPACES)
        piece = stripped
    elif not left or left[-1] in " \t\n":
        if left and left[-1] in _SPACES:
            left = left.rstrip(_SPACES) + " "
        piece = stripped
    out.extend(part for part in (left, piece) if part)
