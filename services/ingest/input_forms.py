"""Many answers in one input, in whichever form people write them: one JSON object (compact
or pretty-printed), a JSON array of objects, or JSON Lines (one object per line). The form is
detected; each answer comes out as its own bytes, numbered by the line it starts on (by its
position for an array), for ingest to admit. Input in none of these forms is an
`InputFormError` that names the forms expected."""

from __future__ import annotations

import json
from dataclasses import dataclass

import orjson

FORMS = ("one JSON object (it may span lines), a JSON array of objects, "
         "or JSON Lines (one object per line)")


class InputFormError(ValueError):
    """The input is in none of the forms read (the message names them)."""


@dataclass(frozen=True, slots=True)
class Record:
    """One answer's bytes and where it is: the line it starts on, or its array position."""

    number: int
    raw: bytes
    unit: str = "line"  # "line" or "item"

    @property
    def position(self) -> str:
        return f"{self.unit} {self.number}"


def split_records(data: bytes) -> list[Record]:
    """The answers of `data`, whichever of the forms it is in (see the module docstring)."""
    body = data.removeprefix(b"\xef\xbb\xbf")
    stripped = body.lstrip()
    if not stripped:
        return []
    if stripped[:1] == b"[":
        return _array(body)
    lines = [(n, line.rstrip(b"\r")) for n, line in enumerate(body.split(b"\n"), 1)
             if line.strip()]
    if len(lines) == 1 or _is_json(lines[0][1]):
        return [Record(n, line) for n, line in lines]  # JSON Lines (or a single line)
    return _sequence(body)


def _is_json(line: bytes) -> bool:
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def _array(body: bytes) -> list[Record]:
    try:
        items = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise InputFormError(
            f"the input starts with '[' but is not a JSON array ({exc}); expected {FORMS}"
        ) from None
    if not isinstance(items, list):  # pragma: no cover - a value starting with [ is a list
        raise InputFormError(f"expected {FORMS}")
    return [Record(i, orjson.dumps(item), "item") for i, item in enumerate(items, 1)]


def _sequence(body: bytes) -> list[Record]:
    """JSON values one after another, each spanning any number of lines (pretty-printed
    objects): each kept as the bytes it was written in."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFormError(f"the input is not UTF-8 at byte {exc.start}; expected {FORMS}"
                             ) from None
    decoder = json.JSONDecoder()
    records = []
    at = _skip_blanks(text, 0)
    while at < len(text):
        line = text.count("\n", 0, at) + 1
        try:
            _value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise InputFormError(
                f"line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg}); "
                f"expected {FORMS}") from None
        records.append(Record(line, text[at:end].encode("utf-8")))
        at = _skip_blanks(text, end)
    return records


def _skip_blanks(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at
