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
field is turned into models the first time a stage reads it; a field no stage logic reads
stays the parsed JSON it arrived as and is written out again as the same bytes. The checksum
detects accidental alteration; it is not a signature (anyone who can write to an internal
topic can also write a matching header).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import orjson
from pydantic import BaseModel
from xxhash import xxh3_64_hexdigest

from schemas.answers import AnswerAccepted
from schemas.citations import AnswerCited, CitationExtraction
from schemas.construct import MODEL, adopt, convert, plan, rebuild
from schemas.envelope import SPECVERSION, Event
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


def checksum(value: bytes) -> bytes:
    """The `citeflow-xxh3` header value of a record value (XXH3 reads a 45 KB event in
    about a seventh of the time of zlib's CRC-32 here; the check runs twice per hop)."""
    return xxh3_64_hexdigest(value).encode()


def written_here(value: bytes, headers: Sequence[tuple[str, bytes]]) -> bool:
    """Whether the record carries a checksum header and its value matches it."""
    for name, header in headers:
        if name == CHECKSUM_HEADER:
            return header == checksum(value)
    return False


def _lazy_getattribute(self: BaseModel, name: str) -> Any:
    pending = _PENDING_OF[type(self)](self)
    if pending and name in pending:
        kind, model = pending.pop(name)
        values = object.__getattribute__(self, "__dict__")
        values[name] = build(model, values[name]) if kind == _LAZY else convert(
            kind, model, values[name])
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


def build(cls: type[BaseModel], values: dict[str, Any]) -> BaseModel:
    """`cls` from the parsed JSON of one written here: a LAZY class converts its fields as
    they are first read (a LAZY field becomes a lazy container itself); any other
    is rebuilt whole."""
    if cls not in LAZY:
        return rebuild(cls, values)
    lazy = _lazy_class(cls)
    obj = object.__new__(lazy)
    adopt(obj, values)
    pending = {
        name: (_LAZY if kind == MODEL and model in LAZY else kind, model)
        for name, kind, model in plan(cls)
        if values.get(name) is not None
    }
    lazy.__dict__["pending"].__set__(obj, pending)
    return obj


def decode_written_here(value: bytes, expected: type[BaseModel]) -> Event | None:
    """A record written here (checksum already matched) as an Event of `expected`; None when
    it is not a current-version `expected` envelope after all (the full path decides)."""
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
        time=time if isinstance(time, str) else "", data=build(expected, body["data"]),
        traceparent=traceparent if isinstance(traceparent, str) else None,
    )


def passed_on(model: BaseModel, name: str) -> Any:
    """Field `name` of `model` as it is to be written out again, without reading it: its
    models, or, on a lazily rebuilt record, the parsed JSON of a field not read yet (written
    out as the same bytes). For a stage that only copies a field into its output."""
    return model.__dict__[name]
