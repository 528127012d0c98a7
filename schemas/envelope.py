"""The CloudEvents 1.0 structured-mode envelope: encode, decode (with upcasting), headers."""

from __future__ import annotations

import time as _time
import uuid
from functools import cache
from hashlib import sha1
from operator import attrgetter
from typing import Any, NamedTuple

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from schemas.registry import (
    EVENT_TYPES,
    EventType,
    event_type_of,
    parse_type,
    type_string,
)
from schemas.upcasters import UpcastError, upcast
from services.runtime.topic_specs import MAX_RECORD_BYTES

SPECVERSION = "1.0"
CONTENT_TYPE = "application/json"
_ID_NAMESPACE = uuid.UUID("6f1c9a52-1b3e-4d5e-9a47-3c1f0e8d2b71")
_REQUIRED = ("specversion", "id", "source", "type", "subject", "data")

Headers = list[tuple[str, bytes]]


class EventDecodeError(ValueError):
    """An input that is not a readable event. `code` is stable, `path` points at the problem."""

    def __init__(
        self,
        code: str,
        message: str,
        path: str = "$",
        errors: list[dict[str, str]] | None = None,
        subject: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path
        self.errors = errors or [{"code": code, "message": message, "path": path}]
        self.subject = subject


class Event(NamedTuple):
    """A decoded event: its CloudEvents attributes and its validated current-version data.
    (A NamedTuple: one is built per record decoded and per record produced.)"""

    id: str
    source: str
    type: str
    subject: str
    time: str
    data: BaseModel
    traceparent: str | None = None
    upcast_from: int | None = None
    # CloudEvents extension attributes (name, value), e.g. the gateway's `tenant`.
    extensions: tuple[tuple[str, str], ...] = ()


_NAMESPACE_BYTES = _ID_NAMESPACE.bytes


def derived_event_id(input_event_id: str, stage: str, output_type: str = "") -> str:
    """A deterministic id: the same input through the same stage always gets the same id,
    so a duplicate from an at-least-once retry is recognisable downstream.

    A UUIDv5 (`uuid.uuid5`, equal by test) set straight into the hex digest, without
    `uuid.UUID` objects: it is on the path of every produced record."""
    h = sha1(_NAMESPACE_BYTES + f"{stage}|{output_type}|{input_event_id}".encode()).hexdigest()
    # version nibble 5; variant bits 10xx in the first nibble of the fourth group
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}
_second: tuple[int, str] = (-1, "")


def now_iso() -> str:
    """The current UTC time as RFC 3339 with milliseconds (the date-time part is formatted
    once per second: this runs for every produced record)."""
    global _second
    now = _time.time()
    second = int(now)
    if second != _second[0]:
        _second = (second, _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(second)))
    return f"{_second[1]}.{int((now - second) * 1000):03d}Z"


def make_event(
    data: BaseModel,
    *,
    subject: str,
    source: str,
    event_id: str | None = None,
    traceparent: str | None = None,
    time: str | None = None,
    extensions: tuple[tuple[str, str], ...] = (),
) -> Event:
    """Wrap a payload model in a current-version event."""
    etype = event_type_of(type(data))
    return Event(
        id=event_id or str(uuid.uuid4()),
        source=source,
        type=etype.type,
        subject=subject,
        time=time or now_iso(),
        data=data,
        traceparent=traceparent,
        extensions=extensions,
    )


def encode(event: Event, data_json: bytes | None = None) -> bytes:
    """The structured-mode JSON value of an event; `data_json` is the payload's JSON when the
    caller has written it already (the gateway hashes the answer's canonical JSON and sends
    those same bytes)."""
    body = envelope_attributes(event)
    data = event.data
    if data_json is not None:
        body["data"] = orjson.Fragment(data_json)
        return fitting(orjson.dumps(body), event)
    body["data"] = data
    try:
        encoded = orjson.dumps(body, default=field_values)
    except orjson.JSONEncodeError:
        body["data"] = orjson.Fragment(data.__pydantic_serializer__.to_json(data))
        encoded = orjson.dumps(body)
    return fitting(encoded, event)


def envelope_attributes(event: Event) -> dict[str, Any]:
    """The event's attributes as `encode` writes them, in order (`data` goes last)."""
    body: dict[str, Any] = {
        "specversion": SPECVERSION,
        "id": event.id,
        "source": event.source,
        "type": event.type,
        "time": event.time,
        "subject": event.subject,
        "datacontenttype": CONTENT_TYPE,
    }
    if event.traceparent:
        body["traceparent"] = event.traceparent
    for name, value in event.extensions:
        body[name] = value
    return body


class EventTooLarge(ValueError):
    """An event whose value is over the broker's record limit: it is never produced (the
    stage's input becomes a dead letter with this message). The door's limit on answers
    (services.ingest.budget) keeps every accepted answer's events under it."""


def fitting(value: bytes, event: Event) -> bytes:
    """`value`, the encoded `event`, unless it is over the record limit (EventTooLarge)."""
    if len(value) > MAX_RECORD_BYTES:
        raise EventTooLarge(
            f"the {event.type} event of {event.subject!r} would be {len(value)} bytes, over "
            f"the broker's limit of {MAX_RECORD_BYTES}")
    return value


# orjson's hook for the one kind of value it does not write itself: a payload model, written
# as its field values. That is byte for byte what pydantic's serializer writes for our event
# models (no custom serializers, aliases, computed or excluded fields; only JSON-native field
# types; tests/schemas/test_payload_json.py holds every registered event model to it) in a
# third to half of the time: the encode of every record on every hop. What orjson cannot
# write (an integer beyond 64 bits in free-form metadata) takes pydantic's serializer.
field_values = attrgetter("__dict__")


def payload_json(data: BaseModel) -> bytes:
    """The JSON of an event payload (what `encode` writes as `data`)."""
    try:
        return orjson.dumps(data, default=field_values)
    except orjson.JSONEncodeError:
        return data.__pydantic_serializer__.to_json(data)


def headers_for(event: Event) -> Headers:
    """Attributes mirrored into `ce_*` headers for cheap filtering, plus `traceparent`."""
    headers: Headers = [
        ("ce_specversion", SPECVERSION.encode()),
        ("ce_id", event.id.encode()),
        ("ce_type", event.type.encode()),
        ("ce_source", event.source.encode()),
        ("ce_subject", event.subject.encode()),
        ("ce_time", event.time.encode()),
        ("content-type", b"application/cloudevents+json"),
    ]
    if event.traceparent:
        headers.append(("traceparent", event.traceparent.encode()))
    headers.extend((f"ce_{name}", value.encode()) for name, value in event.extensions)
    return headers


def json_path(loc: tuple[Any, ...], prefix: str = "$.data") -> str:
    """A JSON path (`$.data.sources[0].index`) from a pydantic error location."""
    path = prefix
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def validation_error(exc: ValidationError, subject: str | None) -> EventDecodeError:
    """An EventDecodeError from pydantic errors, with JSON paths into `data`."""
    errors = [
        {"code": err["type"], "message": err["msg"], "path": json_path(err["loc"])}
        for err in exc.errors(include_url=False)
    ]
    first = errors[0]
    return EventDecodeError(
        "invalid_data",
        f"{first['path']}: {first['message']}"
        + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""),
        first["path"],
        errors,
        subject,
    )


def parse_envelope(value: bytes) -> dict[str, Any]:
    """Bytes to the envelope dict; raises EventDecodeError on bad UTF-8, JSON or shape."""
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EventDecodeError(
            "invalid_utf8", f"value is not valid UTF-8 at byte {exc.start}: {exc.reason}"
        ) from None
    try:
        body = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise EventDecodeError("invalid_json", f"value is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise EventDecodeError("not_an_envelope", "value is not a JSON object")
    subject = body.get("subject") if isinstance(body.get("subject"), str) else None
    for attr in _REQUIRED:
        if attr not in body:
            raise EventDecodeError(
                "not_an_envelope", f"CloudEvents attribute '{attr}' is missing", f"$.{attr}",
                subject=subject,
            )
    for attr in ("specversion", "id", "source", "type", "subject"):
        if not isinstance(body[attr], str):
            raise EventDecodeError(
                "not_an_envelope", f"CloudEvents attribute '{attr}' must be a string",
                f"$.{attr}", subject=subject,
            )
    if body["specversion"] != SPECVERSION:
        raise EventDecodeError(
            "not_an_envelope", f"unsupported specversion {body['specversion']!r}",
            "$.specversion", subject=subject,
        )
    return body


def resolve_type(ce_type: str, subject: str | None = None) -> tuple[EventType, int]:
    """The registered event type and the version an envelope's `type` names."""
    parsed = parse_type(ce_type)
    if parsed is None or parsed[0] not in EVENT_TYPES:
        raise EventDecodeError("unknown_type", f"unknown event type {ce_type!r}", "$.type",
                               subject=subject)
    name, version = parsed
    etype = EVENT_TYPES[name]
    if not etype.oldest_readable <= version <= etype.version:
        raise EventDecodeError(
            "unknown_version",
            f"{name} v{version} is not readable here (readable: "
            f"v{etype.oldest_readable}..v{etype.version})",
            "$.type",
            subject=subject,
        )
    return etype, version


class _EnvelopeAttributes(BaseModel):
    """The attributes of a structured-mode envelope, for the one-pass fast path."""

    model_config = ConfigDict(extra="ignore")
    specversion: str
    id: str
    source: str
    type: str
    subject: str
    time: str = ""
    traceparent: str | None = None


@cache
def _typed_envelope(model: type[BaseModel]) -> type[_EnvelopeAttributes]:
    return create_model(f"{model.__name__}Envelope", __base__=_EnvelopeAttributes,
                        data=(model, ...))


def decode_current(value: bytes, expected: type[BaseModel]) -> Event | None:
    """Parse and validate in one pass when `value` is a well-formed current-version event of
    the expected type; None sends it down the slow path (upcasting, precise errors)."""
    try:
        envelope = _typed_envelope(expected).model_validate_json(value)
    except ValidationError:
        return None
    if envelope.specversion != SPECVERSION or envelope.type != event_type_of(expected).type:
        return None
    return Event(id=envelope.id, source=envelope.source, type=envelope.type,
                 subject=envelope.subject, time=envelope.time,
                 data=envelope.data, traceparent=envelope.traceparent)  # type: ignore[attr-defined]


def decode(value: bytes, expected: type[BaseModel] | None = None) -> Event:
    """Bytes to a validated current-version event; old versions are upcast first.

    Raises EventDecodeError with a stable code for anything that is not such an event.
    """
    if expected is not None:
        fast = decode_current(value, expected)
        if fast is not None:
            return fast
    body = parse_envelope(value)
    subject = body["subject"]
    etype, version = resolve_type(body["type"], subject)
    if expected is not None and etype.model is not expected:
        wanted = event_type_of(expected)
        raise EventDecodeError(
            "unexpected_type",
            f"expected {wanted.type}, got {body['type']!r}",
            "$.type",
            subject=subject,
        )
    data = body["data"]
    if version != etype.version:
        if not isinstance(data, dict):
            raise EventDecodeError("invalid_data", "data must be a JSON object", "$.data",
                                   subject=subject)
        try:
            data = upcast(etype.name, version, etype.version, data)
        except UpcastError as exc:
            raise EventDecodeError("unknown_version", str(exc), "$.type",
                                   subject=subject) from None
    try:
        model = etype.model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, subject) from None
    time, traceparent = body.get("time"), body.get("traceparent")
    return Event(
        id=body["id"],
        source=body["source"],
        type=type_string(etype.name, etype.version),
        subject=subject,
        time=time if isinstance(time, str) else "",
        data=model,
        traceparent=traceparent if isinstance(traceparent, str) else None,
        upcast_from=version if version != etype.version else None,
    )
