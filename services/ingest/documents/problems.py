"""Non-fatal findings about a document, as `documents.ingested` carries them."""

from __future__ import annotations


def problem(code: str, message: str) -> str:
    """A problem entry: `"code: message"` (the code is stable, the message explains)."""
    return f"{code}: {message}"


def problem_code(entry: str) -> str:
    """The stable code of a problem entry."""
    return entry.split(":", 1)[0]
