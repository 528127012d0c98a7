"""Answer admission: a valid v1 `answer.submitted` (after upcasting) is accepted, anything
else becomes an `AnswerRejected` with a stable code, a message (what was wrong, what was
expected, an example), the JSON path of the problem, the answer_id when it could be read and
the original bytes. Never raises on input.

A provider's own response (`answer.provider` on the topic, `admit_provider` for a line of
`citeflow process --from PROVIDER`) is normalised by `services.providers` first; one that
cannot be read is rejected with `invalid_provider_response` and the JSON path in it.

Error codes: `too_large`, `invalid_utf8`, `invalid_json`, `not_an_object`, `not_an_envelope`,
`unknown_type`, `unexpected_type`, `unknown_version`, `upcast_failed`, `missing_field`,
`wrong_type`, `invalid_answer_id`, `limit_exceeded`, `duplicate_source_index`, `invalid_value`,
`invalid_provider_response`.
"""

from __future__ import annotations

import base64
import math
import os
import re
from typing import Any, cast
from urllib.parse import unquote

import orjson
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from schemas.answers import (
    AnswerAccepted,
    AnswerRejected,
    AnswerSubmitted,
    ProviderAnswer,
    RejectionError,
    unidentified_answer_id,
)
from schemas.envelope import (
    EventDecodeError,
    decode_current,
    json_path,
    parse_envelope,
    payload_json,
    resolve_type,
)
from schemas.registry import event_type_of
from schemas.topics import ANSWERS_ACCEPTED, ANSWERS_REJECTED
from schemas.upcasters import UpcastError, upcast
from services.ingest.budget import MAX_WEIGHT, answer_weight
from services.ingest.hints import hint
from services.providers import ProviderError, normalize_data
from services.runtime.stage import Message, Output

MAX_BYTES_ENV = "CITEFLOW_MAX_ANSWER_BYTES"
DEFAULT_MAX_BYTES = MAX_WEIGHT
# The limit measures the answer's JSON (a bare data object, the gateway's body, the `data` of
# an event); the CloudEvents envelope around it on `answers.submitted` may add this much.
ENVELOPE_ALLOWANCE = 16 * 1024
MAX_REPORTED_ERRORS = 50
MAX_METADATA_DEPTH = 64
_NON_FINITE = "NaN and infinite numbers are not JSON"
_ANSWER_ID_MAX = 200
_SUBMITTED = event_type_of(AnswerSubmitted)
_PROVIDER = event_type_of(ProviderAnswer)


def max_answer_bytes() -> int:
    """The limit on one submitted answer's bytes and weight (services.ingest.budget):
    `$CITEFLOW_MAX_ANSWER_BYTES`, at most (and by default) what the stages can carry."""
    configured = os.environ.get(MAX_BYTES_ENV, "").strip()
    if configured.isdigit() and int(configured) > 0:
        return min(int(configured), MAX_WEIGHT)
    return DEFAULT_MAX_BYTES


MAX_BYTES = max_answer_bytes()


class Rejection(EventDecodeError):
    """Why an input is not admitted (internal: always turned into an AnswerRejected)."""

    def __init__(
        self,
        code: str,
        message: str,
        path: str = "$",
        errors: list[dict[str, str]] | None = None,
        answer_id: str | None = None,
        envelope: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(code, message, path, errors, subject=answer_id)
        self.answer_id = answer_id
        self.envelope = envelope


def readable_answer_id(data: object) -> str | None:
    """The answer_id of possibly invalid data: a string of 1..200 characters under `answer_id`."""
    if isinstance(data, dict):
        answer_id = data.get("answer_id")
        if isinstance(answer_id, str) and 0 < len(answer_id) <= _ANSWER_ID_MAX:
            return answer_id
    return None


def _error_code(error: ErrorDetails) -> str:
    """The stable code of one pydantic error."""
    kind: str = error["type"]
    if kind in ("missing", "source_kind"):
        return "missing_field"
    if kind == "value_error" and "duplicate source index" in error["msg"]:
        return "duplicate_source_index"
    if kind in ("string_too_long", "too_long"):
        return "limit_exceeded"
    if error["loc"] == ("answer_id",) and kind == "string_pattern_mismatch":
        return "invalid_answer_id"
    if kind.endswith(("_type", "_parsing")) or kind == "int_from_float":
        return "wrong_type"
    return "invalid_value"


def _error_message(error: ErrorDetails) -> str:
    if _error_code(error) == "invalid_answer_id":
        return "answer_id must be 1..200 characters of A-Z a-z 0-9 . _ : -, e.g. \"answer-42\""
    message = str(error["msg"]).removeprefix("Value error, ")
    return message if error["type"] == "source_kind" else message + hint(error["loc"])


def _location(error: ErrorDetails) -> tuple[int | str, ...]:
    """Where the error is: a source whose kind cannot be inferred is an error of its `kind`."""
    return (*error["loc"], "kind") if error["type"] == "source_kind" else error["loc"]


def _from_validation(exc: ValidationError, prefix: str, answer_id: str | None) -> Rejection:
    all_errors = exc.errors(include_url=False)
    errors = [
        {
            "code": _error_code(err),
            "message": _error_message(err),
            "path": json_path(_location(err), prefix),
        }
        for err in all_errors[:MAX_REPORTED_ERRORS]
    ]
    first = errors[0]
    more = len(all_errors) - 1
    message = f"{first['path']}: {first['message']}" + (f" (and {more} more)" if more else "")
    return Rejection(first["code"], message, first["path"], errors, answer_id)


def _number_or_nesting_problem(answer: AnswerSubmitted) -> tuple[str, str, str] | None:
    """(code, path, message) of a NaN or infinite number (pydantic's JSON parser lets them
    through, but they are not JSON and the envelope path's parser rejects them), or of metadata
    nested too deep to be serialised again downstream."""
    for position, source in enumerate(answer.sources):
        if source.score is not None and not math.isfinite(source.score):
            return "invalid_json", f"$.sources[{position}].score", _NON_FINITE
    if answer.options is not None and not math.isfinite(answer.options.min_citation_score):
        return "invalid_json", "$.options.min_citation_score", _NON_FINITE
    if answer.metadata:
        found = _metadata_problem(answer.metadata, 0)
        if found is not None:
            code, loc = found
            message = _NON_FINITE if code == "invalid_json" else (
                f"metadata nests deeper than {MAX_METADATA_DEPTH} levels"
            )
            return code, json_path(tuple(reversed(loc)), "$.metadata"), message
    return None


def _metadata_problem(value: object, depth: int) -> tuple[str, list[Any]] | None:
    """The code and reversed location of the first problem inside a metadata value."""
    if isinstance(value, float):
        return None if math.isfinite(value) else ("invalid_json", [])
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    if depth >= MAX_METADATA_DEPTH:
        return "limit_exceeded", []
    for key, item in items:
        found = _metadata_problem(item, depth + 1)
        if found is not None:
            found[1].append(key)
            return found
    return None


def _checked(answer: AnswerSubmitted, prefix: str) -> AnswerSubmitted:
    """`answer` once its numbers, nesting and paths pass what the model cannot say."""
    found = _number_or_nesting_problem(answer) or _path_problem(answer)
    if found is not None:
        code, path, message = found
        path = prefix + path[1:]
        raise Rejection(code, f"{path}: {message}", path, answer_id=answer.answer_id)
    return answer


def _path_problem(answer: AnswerSubmitted) -> tuple[str, str, str] | None:
    """The first source `doc_id` or chunk `href` with a `.` or `..` segment (percent-encoded
    or not): pages put them into the paths of the gateway routes they fetch, where such a
    segment would steer the request to another route."""
    for i, source in enumerate(answer.sources):
        named: list[tuple[str | None, int | None]] = [(source.doc_id, None)]
        named += [(chunk.href, j) for j, chunk in enumerate(source.chunks) if chunk.href]
        for value, j in named:
            # A dot segment needs a `.`, written or percent-encoded: most values have neither.
            if (
                value
                and ("." in value or "%" in value)
                and _DOT_SEGMENTS & set(_SEGMENT_SEPARATORS.split(unquote(value)))
            ):
                path = f"$.sources[{i}]." + ("doc_id" if j is None else f"chunks[{j}].href")
                return ("unsafe_path", path, f"{value!r} has a '.' or '..' segment, which "
                        "would change the route a link to it fetches; name the document or "
                        "chapter without one")
    return None


_SEGMENT_SEPARATORS = re.compile(r"[/\\]")
_DOT_SEGMENTS = frozenset({".", ".."})


def _load(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejection(
            "invalid_utf8", f"input is not valid UTF-8 at byte {exc.start}: {exc.reason}"
        ) from None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise Rejection("invalid_json", f"input is not valid JSON: {exc}; an answer is one JSON "
                        'object, e.g. {"answer_id": "answer-42", "text": "…", "sources": […]}'
                        ) from None


def _validate(data: object, prefix: str) -> AnswerSubmitted:
    """A v1 data object (already parsed) to the model, or a Rejection."""
    answer_id = readable_answer_id(data)
    if not isinstance(data, dict):
        raise Rejection(
            "not_an_object", f"{prefix}: an answer must be a JSON object, "
            f"not {type(data).__name__ if data is not None else 'null'}; e.g. "
            '{"answer_id": "answer-42", "text": "The sky is blue [1].", "sources": [...]}', prefix,
        )
    try:
        answer = AnswerSubmitted.model_validate(data)
    except ValidationError as exc:
        raise _from_validation(exc, prefix, answer_id) from None
    return _checked(answer, prefix)


def _provider_answer(data: object, prefix: str) -> AnswerSubmitted:
    """A provider line (parsed; `provider` among its fields) normalised and validated, or a
    Rejection: the line's own errors at their path, an unreadable response as
    `invalid_provider_response`, a normalised answer over a limit at its answer path."""
    answer_id = readable_answer_id(data)
    if not isinstance(data, dict):
        raise Rejection("not_an_object", f"{prefix}: a provider line must be a JSON object",
                        prefix)
    try:
        line = ProviderAnswer.model_validate(data)
        normalised = normalize_data(line)
    except ValidationError as exc:
        raise _from_validation(exc, prefix, answer_id) from None
    except ProviderError as exc:
        path = prefix + exc.path[1:]
        raise Rejection("invalid_provider_response", f"{path}: {exc.message}", path,
                        answer_id=answer_id) from None
    return _validate(normalised, f"{prefix}<normalised {line.provider} answer>")


def _check_size(raw: bytes, max_bytes: int, envelope: int = 0) -> None:
    if len(raw) > max_bytes + envelope:
        raise Rejection(
            "too_large",
            f"input is {len(raw)} bytes, over the limit of {max_bytes} bytes"
            + (f" (and {envelope} for its event envelope)" if envelope else ""),
        )


def _weighed(
    answer: AnswerSubmitted, prefix: str, max_bytes: int, read_bytes: int | None
) -> AnswerSubmitted:
    """`answer` once its weight (services.ingest.budget: its JSON as produced, its text,
    sentences and citations) is within `max_bytes`, so every event built for it fits;
    `read_bytes`: the bytes it was read from as it is (None: normalised or upcast)."""
    weight = answer_weight(answer, max_bytes, read_bytes=read_bytes or 0,
                           json_bytes=None if read_bytes else len(payload_json(answer)))
    if weight.total > max_bytes:
        raise Rejection("too_large", f"{prefix}: the answer {weight.describe()}, over the "
                        f"limit of {max_bytes}", prefix, answer_id=answer.answer_id)
    return answer


def _admit_data(raw: bytes, max_bytes: int) -> AnswerSubmitted:
    _check_size(raw, max_bytes)
    try:  # fast path: valid input is parsed and validated in one step
        answer = _checked(AnswerSubmitted.model_validate_json(raw), "$")
    except ValidationError:  # diagnose precisely on the slow path
        answer = _validate(_load(raw), "$")
    return _weighed(answer, "$", max_bytes, len(raw))


def _rejected(
    exc: Rejection, raw: bytes, *, event_id: str | None, position: str | None,
    message: Message | None = None,
) -> AnswerRejected:
    return AnswerRejected(
        answer_id=exc.answer_id,
        code=exc.code,
        message=exc.message,
        path=exc.path,
        errors=[RejectionError(**error) for error in exc.errors],
        original_base64=base64.b64encode(raw).decode("ascii"),
        original_topic=message.topic if message else None,
        original_partition=message.partition if message else None,
        original_offset=message.offset if message else None,
        size_bytes=len(raw),
        original_event_id=event_id,
        position=position,
    )


def admit_data(
    raw: bytes, *, event_id: str, position: str | None = None, max_bytes: int | None = None
) -> AnswerAccepted | AnswerRejected:
    """Admit one bare `answer.submitted` v1 data object (a line of `citeflow process`)."""
    try:
        answer = _admit_data(raw, MAX_BYTES if max_bytes is None else max_bytes)
    except Rejection as exc:
        return _rejected(exc, raw, event_id=event_id, position=position)
    return AnswerAccepted(answer=answer, submitted_event_id=event_id, size_bytes=len(raw))


def admit_provider(
    raw: bytes, provider: str, *, event_id: str, position: str | None = None,
    max_bytes: int | None = None,
) -> AnswerAccepted | AnswerRejected:
    """Admit one provider line (`{"response", "request", "answer_id", "metadata", …}`, a line
    of `citeflow process --from PROVIDER`): normalised, then admitted like an answer."""
    try:
        limit = MAX_BYTES if max_bytes is None else max_bytes
        _check_size(raw, limit)
        data = _load(raw)
        line = {**data, "provider": provider} if isinstance(data, dict) else data
        answer = _weighed(_provider_answer(line, "$"), f"$<normalised {provider} answer>",
                          limit, None)
    except Rejection as exc:
        return _rejected(exc, raw, event_id=event_id, position=position)
    return AnswerAccepted(answer=answer, submitted_event_id=event_id, size_bytes=len(raw))


def _loose_object(value: bytes) -> dict[str, Any] | None:
    """The JSON object of a value that is not a valid envelope, when it is an object at all."""
    try:
        body = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    return body if isinstance(body, dict) else None


def _decode_envelope(value: bytes) -> tuple[dict[str, Any], AnswerSubmitted, int | None]:
    """The envelope, its validated (upcast) answer and the version it was upcast from."""
    try:
        body = parse_envelope(value)
    except EventDecodeError as exc:
        loose = _loose_object(value) if exc.code == "not_an_envelope" else None
        answer_id = readable_answer_id(loose.get("data")) if loose else None
        raise Rejection(exc.code, exc.message, exc.path, exc.errors, answer_id, loose) from None
    try:
        return _decode_data(body)
    except Rejection as exc:
        exc.envelope = body
        raise


def _decode_data(body: dict[str, Any]) -> tuple[dict[str, Any], AnswerSubmitted, int | None]:
    data = body["data"]
    answer_id = readable_answer_id(data)
    try:
        etype, version = resolve_type(body["type"])
    except EventDecodeError as exc:
        raise Rejection(exc.code, exc.message, exc.path, answer_id=answer_id) from None
    if etype is _PROVIDER:
        return body, _provider_answer(data, "$.data"), None
    if etype is not _SUBMITTED:
        raise Rejection(
            "unexpected_type", f"expected {_SUBMITTED.type}, got {body['type']!r}", "$.type",
            answer_id=answer_id,
        )
    if version == etype.version:
        return body, _validate(data, "$.data"), None
    if not isinstance(data, dict):
        raise Rejection("not_an_object", "$.data: an answer must be a JSON object", "$.data")
    try:
        lifted = upcast(etype.name, version, etype.version, data)
    except UpcastError as exc:
        raise Rejection("unknown_version", str(exc), "$.type", answer_id=answer_id) from None
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise Rejection(
            "upcast_failed", f"$.data: v{version} data could not be upcast: {exc}", "$.data",
            answer_id=answer_id,
        ) from None
    return body, _validate(lifted, "$.data"), version


def _attribute(envelope: dict[str, Any] | None, name: str) -> str | None:
    """A non-empty string attribute of a (possibly invalid) envelope."""
    value = envelope.get(name) if envelope else None
    return value if isinstance(value, str) and value else None


def _subject(answer_id: str | None, message: Message, envelope: dict[str, Any] | None) -> str:
    """answer_id when readable, else the message key, else the envelope subject, else the
    input's own id (`@topic:partition:offset`: one per input, not one for all of them)."""
    if answer_id:
        return answer_id
    if message.key:
        return message.key.decode("utf-8", errors="replace")
    return _attribute(envelope, "subject") or unidentified_answer_id(message.position)


def _header(message: Message, name: str) -> str | None:
    for key, raw in message.headers:
        if key == name:
            return raw.decode("utf-8", errors="replace")
    return None


def _fast_decode(value: bytes) -> tuple[dict[str, Any], AnswerSubmitted, int | None] | None:
    """A well-formed current-version envelope, parsed and validated in one step; None sends
    anything else through `_decode_envelope` for the diagnosis (or for upcasting)."""
    event = decode_current(value, AnswerSubmitted)
    if event is None:
        return None
    body = {"id": event.id, "subject": event.subject, "traceparent": event.traceparent}
    try:
        answer = cast(AnswerSubmitted, event.data)  # decode_current checked its type
        return body, _checked(answer, "$.data"), None
    except Rejection as exc:
        exc.envelope = body
        raise


def handle_submitted(message: Message, *, max_bytes: int | None = None) -> list[Output]:
    """Admit one record of `answers.submitted` (a CloudEvents envelope; old versions upcast):
    one Output to `answers.accepted`, or to `answers.rejected` for any bad input."""
    value = message.value
    limit = MAX_BYTES if max_bytes is None else max_bytes
    try:
        _check_size(value, limit, ENVELOPE_ALLOWANCE)
        body, answer, upcast_from = _fast_decode(value) or _decode_envelope(value)
        try:
            _weighed(answer, "$.data", limit, None if upcast_from is not None else len(value))
        except Rejection as exc:
            exc.envelope = body
            raise
    except Rejection as exc:
        event_id = _attribute(exc.envelope, "id")
        rejected = _rejected(
            exc, value, event_id=event_id, position=message.position, message=message
        )
        return [
            Output(
                topic=ANSWERS_REJECTED,
                data=rejected,
                subject=_subject(exc.answer_id, message, exc.envelope),
                cause_id=event_id or message.position,
                traceparent=_attribute(exc.envelope, "traceparent")
                or _header(message, "traceparent"),
            )
        ]
    accepted = AnswerAccepted(
        answer=answer,
        submitted_event_id=body["id"],
        size_bytes=len(value),
        upcast_from=upcast_from,
    )
    return [
        Output(
            topic=ANSWERS_ACCEPTED,
            data=accepted,
            subject=answer.answer_id,
            cause_id=body["id"],
            traceparent=_attribute(body, "traceparent") or _header(message, "traceparent"),
        )
    ]
