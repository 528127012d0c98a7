"""Records a stage of this pipeline wrote, read back without validating them again.

Every event a stage publishes carries a checksum of its value (XXH3, 64 bits) in the
`citeflow-xxh3` header (`services.runtime.loop`). A record on an internal topic whose checksum matches and
whose `type` is the current version of the event expected there was written by a stage of
this pipeline from validated models: it is parsed (orjson) and rebuilt without validation
(`schemas.construct.rebuild`). A record without the header (a foreign producer), with a
checksum that does not match (bytes altered on the topic) or of another version takes the
full path instead (`schemas.envelope.decode`: upcasting, validation, precise errors), and a
poison record still becomes a dead letter with its reason.

The containers of an event (the payload, `extraction`, `resolution`) are rebuilt lazily: a
field is turned into models the first time a stage reads it; a field no stage logic reads is
written out again as the same bytes. A `PARTED` payload is written member by member, and the
`citeflow-parts` header gives where each of its containers' larger members (a model, a list
or a dict of models) stands in the value: the reader parses the value with those members cut
out and keeps each as its bytes (an `orjson.Fragment`), parsed only when it is read. The
checksum covers the value and the parts header; it detects accidental alteration, and is not
a signature (anyone who can write to an internal topic can also write a matching header:
parts that do not fit the value, or name a member that is not one, send the record down the
full path).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import orjson
from pydantic import BaseModel
from xxhash import xxh3_64, xxh3_64_hexdigest

from schemas.answers import AnswerAccepted
from schemas.citations import AnswerCited, CitationExtraction
from schemas.construct import FLOAT, MODEL, adopt, convert, plan, rebuild
from schemas.envelope import (
    SPECVERSION,
    Event,
    Headers,
    encode,
    envelope_attributes,
    field_values,
    fitting,
)
from schemas.registry import event_type_of
from schemas.scoring import AnswerScored
from schemas.spans import AnswerResolved, SpanResolution

CHECKSUM_HEADER = "citeflow-xxh3"
# Models rebuilt lazily (field by field, as read): the payloads of the internal topics and
# their containers, which hold parts later stages pass on without reading.
LAZY: tuple[type[BaseModel], ...] = (
    AnswerAccepted, AnswerScored, AnswerCited, AnswerResolved, CitationExtraction,
    SpanResolution,
)


PARTS_HEADER = "citeflow-parts"


# The payloads written with parts: the resolved event, whose reader (the formatting stage)
# passes about half of its bytes on unread. Each earlier stage reads nearly all of its input,
# and there cutting the value and writing it member by member cost what they save.
PARTED: tuple[type[BaseModel], ...] = (AnswerResolved,)


def checksum(value: bytes, parts: bytes = b"") -> bytes:
    """The `citeflow-xxh3` header value of a record value and its parts header (XXH3 reads
    a 45 KB event in about a seventh of the time of zlib's CRC-32 here; the check runs
    twice per hop)."""
    if not parts:
        return xxh3_64_hexdigest(value).encode()
    digest = xxh3_64(value)
    digest.update(b"\0")
    digest.update(parts)
    return digest.hexdigest().encode()


def trusted_parts(value: bytes, headers: Sequence[tuple[str, bytes]]) -> bytes | None:
    """The parts header of a record written here (b"" when it has none), or None when the
    record carries no checksum or one that does not match its value and parts."""
    found: bytes | None = None
    parts = b""
    for name, header in headers:
        if name == CHECKSUM_HEADER:
            found = header
        elif name == PARTS_HEADER:
            parts = header
    return parts if found is not None and found == checksum(value, parts) else None


def written_here(value: bytes, headers: Sequence[tuple[str, bytes]]) -> bool:
    """Whether the record carries a checksum header that matches it."""
    return trusted_parts(value, headers) is not None


def _lazy_getattribute(self: BaseModel, name: str) -> Any:
    pending = _PENDING_OF[type(self)](self)
    if pending and name in pending:
        kind, model, raw = pending.pop(name)
        values = object.__getattribute__(self, "__dict__")
        if kind == _LAZY:
            values[name] = build(model, values[name], raw)
        else:
            values[name] = convert(kind, model, values[name] if raw is None else orjson.loads(raw))
    return object.__getattribute__(self, name)


_PENDING_OF: dict[type, Any] = {}
# The kind of a pending field holding a LAZY model (see schemas.construct for the others).
_LAZY = -1


@cache
def _lazy_class(cls: type[BaseModel]) -> type[BaseModel]:
    metaclass: Any = type(cls)  # pydantic's: the subclass is a model class like `cls`
    lazy: type[BaseModel] = metaclass(f"Lazy{cls.__name__}", (cls,), {
        "__slots__": ("pending",), "__module__": __name__,
        "__getattribute__": _lazy_getattribute,
    })
    _PENDING_OF[lazy] = lazy.__dict__["pending"].__get__
    return lazy


# The bytes of the members a reader kept unparsed (`_cut`), by name; a LAZY container's
# entry holds its own members' bytes.
Raws = dict[str, Any]


def build(cls: type[BaseModel], values: dict[str, Any], raws: Raws | None = None) -> BaseModel:
    """`cls` from the parsed JSON of one written here: a LAZY class converts its fields as
    they are first read (a LAZY field becomes a lazy container itself; a member kept as its
    bytes in `raws` is parsed then); any other is rebuilt whole."""
    if cls not in LAZY:
        return rebuild(cls, values)
    lazy = _lazy_class(cls)
    obj = object.__new__(lazy)
    adopt(obj, values)
    raws = raws or {}
    pending = {
        name: (_LAZY if kind == MODEL and model in LAZY else kind, model, raws.get(name))
        for name, kind, model in plan(cls)
        if values.get(name) is not None
    }
    lazy.__dict__["pending"].__set__(obj, pending)
    return obj


# -- the parts: LAZY containers written member by member --------------------------------------


@cache
def _members(cls: type[BaseModel]) -> dict[str, type[BaseModel] | None]:
    """The members of LAZY `cls` that are parts (None) or LAZY containers (their class)."""
    return {name: model if kind == MODEL and model in LAZY else None
            for name, kind, model in plan(cls) if kind != FLOAT}


@cache
def _part_paths(cls: type[BaseModel]) -> frozenset[bytes]:
    """Every path (`extraction.sentences`) a parts header may name in an event of `cls`."""
    found: set[bytes] = set()
    for name, inner in _members(cls).items():
        if inner is None:
            found.add(name.encode())
        else:
            found.update(name.encode() + b"." + path for path in _part_paths(inner))
    return frozenset(found)


def encode_written(event: Event) -> tuple[bytes, Headers]:
    """The value `schemas.envelope.encode` writes for `event` (the same bytes) and the
    headers that tell the next stage it was written here: a `PARTED` payload's parts
    (`path:start:length` of each, `;`-separated), then the checksum."""
    if type(event.data) not in PARTED:
        value = encode(event)
        return value, [(CHECKSUM_HEADER, checksum(value))]
    head = orjson.dumps(envelope_attributes(event))[:-1] + b',"data":'
    pieces = [head]
    parts: list[str] = []
    _write(type(event.data), event.data.__dict__, "", pieces, parts, len(head))
    pieces.append(b"}")
    value, header = fitting(b"".join(pieces), event), ";".join(parts).encode()
    return value, [(PARTS_HEADER, header), (CHECKSUM_HEADER, checksum(value, header))]


def _write(cls: type[BaseModel], values: dict[str, Any], path: str, pieces: list[bytes],
           parts: list[str], at: int) -> int:
    """Append the JSON object of `values` (the fields of LAZY `cls`, or their parsed JSON)
    to `pieces`, the object starting at offset `at`, noting each part in `parts`; returns
    the offset after the object."""
    members = _members(cls)
    pieces.append(b"{")
    at += 1
    separator = b'"'
    for name, value in values.items():
        key = separator + name.encode() + b'":'
        separator = b',"'
        pieces.append(key)
        at += len(key)
        inner = members.get(name)
        if inner is not None and value is not None and type(value) is not orjson.Fragment:
            fields = value if type(value) is dict else value.__dict__
            at = _write(inner, fields, f"{path}{name}.", pieces, parts, at)
            continue
        data = orjson.dumps(value, default=field_values)
        if name in members and value is not None:
            parts.append(f"{path}{name}:{at}:{len(data)}")
        pieces.append(data)
        at += len(data)
    pieces.append(b"}")
    return at + 1


def _cut(value: bytes, parts: bytes, expected: type[BaseModel]) -> tuple[Any, Raws] | None:
    """The parsed value with each part cut out (its member holds an `orjson.Fragment` of
    its bytes), and the parts' bytes by path; None when the parts do not fit the value or
    name a member that is not a part of `expected`."""
    allowed = _part_paths(expected)
    cuts: list[tuple[list[str], int, int]] = []
    done = 0
    try:
        for item in parts.split(b";"):
            named, start_text, length_text = item.rsplit(b":", 2)
            start, length = int(start_text), int(length_text)
            if named not in allowed or start < done or length <= 0:
                return None
            done = start + length
            cuts.append((named.decode().split("."), start, done))
    except ValueError:
        return None
    if done > len(value):
        return None
    pieces: list[bytes] = []
    done = 0
    for _, start, end in cuts:
        pieces += (value[done:start], b"0")
        done = end
    pieces.append(value[done:])
    try:
        body = orjson.loads(b"".join(pieces))
    except orjson.JSONDecodeError:
        return None
    raws: Raws = {}
    data = body.get("data") if isinstance(body, dict) else None
    for path, start, end in cuts:
        container: Any = data
        known: Raws = raws
        for step in path[:-1]:
            container = container.get(step) if isinstance(container, dict) else None
            known = known.setdefault(step, {})
        member = path[-1]
        if not isinstance(container, dict):
            return None
        placeholder = container.get(member)
        if type(placeholder) is not int or placeholder != 0:
            return None
        raw = value[start:end]
        container[member] = orjson.Fragment(raw)
        known[member] = raw
    return body, raws


def decode_written_here(
    value: bytes, expected: type[BaseModel], parts: bytes = b""
) -> Event | None:
    """A record written here (checksum already matched; `parts` its parts header) as an
    Event of `expected`; None when it is not a current-version `expected` envelope after
    all (the full path decides)."""
    raws: Raws | None = None
    if parts and expected in LAZY:
        cut = _cut(value, parts, expected)
        if cut is None:
            return None
        body, raws = cut
    else:
        try:
            body = orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
    if (
        not isinstance(body, dict)
        or body.get("specversion") != SPECVERSION
        or body.get("type") != event_type_of(expected).type
        or not isinstance(body.get("data"), dict)
        or not all(isinstance(body.get(k), str) for k in ("id", "source", "subject"))
    ):
        return None
    time, traceparent = body.get("time"), body.get("traceparent")
    return Event(
        id=body["id"], source=body["source"], type=body["type"], subject=body["subject"],
        time=time if isinstance(time, str) else "", data=build(expected, body["data"], raws),
        traceparent=traceparent if isinstance(traceparent, str) else None,
    )


def passed_on(model: BaseModel, name: str) -> Any:
    """Field `name` of `model` as it is to be written out again, without reading it: its
    models, or, on a lazily rebuilt record, the JSON of a field not read yet (its bytes, or
    its parsed JSON on a record without parts; written out as the same bytes). For a stage
    that only copies a field into its output."""
    return model.__dict__[name]
