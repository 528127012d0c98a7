"""References in AMA style from source metadata (seed 004)."""

from __future__ import annotations

from schemas.answers import Source

MAX_AUTHORS = 3  # AMA: up to three authors, then "et al"


def ama_authors(authors: list[str]) -> str:
    """`A, B, C` or `A, B, C, et al` when there are more than three."""
    names = [name.strip() for name in authors if name.strip()]
    if len(names) > MAX_AUTHORS:
        return ", ".join(names[:MAX_AUTHORS]) + ", et al"
    return ", ".join(names)


def ama_reference(source: Source) -> str:
    """`Authors. Title. Journal. Year. doi:DOI` (a URL when there is no DOI); "" when the
    source has no metadata at all."""
    parts = [
        ama_authors(source.authors),
        (source.title or "").strip(),
        (source.journal or "").strip(),
        str(source.year) if source.year is not None else "",
    ]
    sentence = ""
    for part in parts:
        if not part:
            continue
        part = part.rstrip(".")
        sentence += part + (" " if part.endswith(("?", "!")) else ". ")
    locator = ""
    if source.doi:
        locator = "doi:" + source.doi.strip().removeprefix("https://doi.org/").removeprefix("doi:")
    elif source.url:
        locator = source.url.strip()
    return (sentence + locator).strip()


def references(sources: list[Source]) -> dict[str, str]:
    """`str(source index)` -> its AMA reference, for every source with metadata."""
    found = {}
    for source in sources:
        reference = ama_reference(source)
        if reference:
            found[str(source.index)] = reference
    return found
