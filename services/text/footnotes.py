"""Markdown footnote definitions (`[^1]: Smith J. Title. https://…` lines, with indented
continuation lines): read as references, not as answer sentences. Nothing in them
is a citation; a definition of a numbered footnote that links a URL other than its source's
is a problem (`url_mismatch`), like a `[Web Source N](url)` whose URL does not match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from schemas.answers import Source
from services.text.hits import ProblemHit
from services.text.markers import url_key

_DEFINITION = re.compile(
    r"^[ \t]{0,3}\[\^(?P<label>[^\]\s]+)\]:[^\n]*(?:\n(?:[ ]{2,}|\t)[^\n]*)*", re.MULTILINE
)
_URL = re.compile(r"https?://[^\s<>()\]]+")


def footnote_definitions(text: str) -> list[tuple[int, int, str]]:
    """`(start, end, label)` of every footnote definition, in text order."""
    if "[^" not in text or "]:" not in text:
        return []
    return [(m.start(), m.end(), m.group("label")) for m in _DEFINITION.finditer(text)]


def check_definitions(
    text: str, definitions: list[tuple[int, int, str]], sources: Sequence[Source]
) -> list[ProblemHit]:
    """Problems of the definitions: a numbered one whose URL is not its source's."""
    by_index = {source.index: source for source in sources}
    problems = []
    for start, end, label in definitions:
        source = by_index.get(int(label)) if label.isdigit() else None
        link = _URL.search(text, start, end)
        if source is None or link is None or not source.url:
            continue
        url = link.group().rstrip(".,;")
        if url_key(url) != url_key(source.url):
            message = f"footnote [^{label}] links {url}, but source {label} is {source.url}"
            problems.append(ProblemHit("url_mismatch", message, start, end))
    return problems
