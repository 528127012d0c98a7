"""What every provider adapter builds: the answer text, its sources and the citations tied to
spans of the text, turned into one `answer.submitted` data object. Also the typed readers
the adapters use to walk a provider's JSON, each failing with a `ProviderError` that names
the JSON path of the problem.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any


class ProviderError(ValueError):
    """A provider response (or request) that cannot be read: the reason and its JSON path."""

    def __init__(self, message: str, path: str = "$.response") -> None:
        super().__init__(f"{path}: {message}")
        self.message = message
        self.path = path


def obj(value: Any, path: str) -> dict[str, Any]:
    """`value` as a JSON object, else a ProviderError at `path`."""
    if not isinstance(value, dict):
        raise ProviderError(f"expected an object, got {_kind(value)}", path)
    return value


def arr(value: Any, path: str, *, optional: bool = True) -> list[Any]:
    """`value` as a JSON array (None is empty when `optional`), else a ProviderError."""
    if value is None and optional:
        return []
    if not isinstance(value, list):
        raise ProviderError(f"expected an array, got {_kind(value)}", path)
    return value


def string(value: Any, path: str) -> str:
    """`value` as a string, else a ProviderError."""
    if not isinstance(value, str):
        raise ProviderError(f"expected a string, got {_kind(value)}", path)
    return value


def integer(value: Any, path: str, default: int | None = None) -> int:
    """`value` as a non-negative integer (`default` when absent), else a ProviderError."""
    if value is None and default is not None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ProviderError(f"expected a non-negative integer, got {_kind(value)}", path)
    return value


def optional_str(value: Any) -> str | None:
    """A non-empty string, else None (for names and titles that may be missing)."""
    return value if isinstance(value, str) and value else None


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def pick(data: dict[str, Any], *names: str) -> Any:
    """The first of `names` present in `data` (camelCase and snake_case spellings)."""
    for name in names:
        if name in data:
            return data[name]
    return None


@dataclass
class Draft:
    """An answer being assembled from a provider's response."""

    parts: list[str] = field(default_factory=list)
    size: int = 0
    sources: list[dict[str, Any]] = field(default_factory=list)
    keys: dict[Hashable, int] = field(default_factory=dict)
    citations: list[dict[str, Any]] = field(default_factory=list)
    units: list[dict[str, Any]] = field(default_factory=list)
    query: str | None = None

    def add_text(self, text: str) -> int:
        """Append answer text; returns its offset (code points) in the answer."""
        offset = self.size
        self.parts.append(text)
        self.size += len(text)
        return offset

    @property
    def text(self) -> str:
        """The answer text so far."""
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def source(self, key: Hashable, **fields: Any) -> int:
        """The index of the source known by `key`, added with `fields` the first time."""
        index = self.keys.get(key)
        if index is None:
            index = self.keys[key] = len(self.sources) + 1
            given = {name: value for name, value in fields.items() if value is not None}
            self.sources.append({"index": index, "chunks": [], **given})
        return index

    def add_chunk(self, index: int, text: str, **fields: Any) -> None:
        """Add source text to source `index` (skipped when empty or already there)."""
        chunks = self.sources[index - 1]["chunks"]
        if text and all(chunk["text"] != text for chunk in chunks):
            chunks.append({"text": text, **{k: v for k, v in fields.items() if v is not None}})

    def cite(
        self,
        index: int | None,
        start: int,
        end: int,
        *,
        visible: bool = False,
        quote: str | None = None,
        label: str | None = None,
        page: int | None = None,
        problem: str | None = None,
    ) -> None:
        """A citation of source `index` over the answer's `[start, end)` (code points). A
        `quote` from the source becomes a verbatim claim the spans stage checks."""
        self.citations.append(
            {
                "source_index": index,
                "start": start,
                "end": end,
                "visible": visible,
                "page": page,
                "label": label,
                "problem": problem,
            }
        )
        if quote and index is not None and problem is None and 0 <= start < end <= self.size:
            self.units.append(
                {
                    "id": f"P{len(self.units) + 1}",
                    "text": self.text[start:end],
                    "kind": "verbatim",
                    "quote": quote,
                    "source_indexes": [index],
                }
            )

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        """The `answer.submitted` data: the line's id, query, options and metadata (passed
        through untouched) with the assembled text, sources and citations."""
        return {
            "answer_id": line["answer_id"],
            "query": line.get("query") or self.query,
            "text": self.text,
            "sources": self.sources,
            "citations": self.citations,
            "answer_units": self.units or None,
            "options": line.get("options"),
            "metadata": line.get("metadata"),
        }


def last_user_text(messages: Any) -> str | None:
    """The text of the last user message of a chat request (`content` a string or a list of
    text blocks): the query the answer answers."""
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content or None
            if isinstance(content, list):
                texts = [
                    block["text"] for block in content
                    if isinstance(block, dict) and isinstance(block.get("text"), str)
                ]
                return " ".join(texts) or None
    return None


def place(text: str, start: int, end: int, segment: str | None) -> tuple[int, int, str | None]:
    """Check a provider's span against the segment text it says is there: `(start, end,
    problem)`. When the text there differs but the segment occurs once nearby (an off-by-one
    end, a shifted span), the span moves onto it; else the span is kept with a problem."""
    if not 0 <= start <= end <= len(text):
        return start, end, None  # the citations stage flags it as out of range
    if segment is None or text[start:end] == segment:
        return start, end, None
    if segment and text[start : start + len(segment)] == segment:
        return start, start + len(segment), None  # `end` inclusive or off by one
    found = text.find(segment, max(0, start - 8), end + len(segment) + 8) if segment else -1
    if found != -1:
        return found, found + len(segment), None
    return start, end, "the cited segment's text is not at the given offsets"
