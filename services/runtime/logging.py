"""structlog JSON-lines logging for stage processes and gateway workers."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any

import orjson
import structlog


def _dumps(event: dict[str, Any], default: Callable[[Any], Any] | None = None,
           **_: Any) -> bytes:
    """orjson (a log line per request on the gateway's submit path: it is the cheap part),
    and the standard encoder for what orjson refuses (an int beyond 64 bits, non-string
    keys): a log call never raises for its values."""
    try:
        return orjson.dumps(event, default=default)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(event, default=default or repr).encode()


LEVELS = ("debug", "info", "warning", "error", "critical")


def configure(level: str = "info") -> None:
    """One JSON object per line on stderr, with ISO timestamps and the log level; the
    standard library's loggers (aiokafka's warnings) and Python warnings too."""
    if level.lower() not in LEVELS:
        raise ValueError(f"CITEFLOW_LOG_LEVEL={level!r} is not a log level "
                         f"({', '.join(LEVELS)})")
    numeric = logging.getLevelName(level.upper())
    shared: list[Any] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            *shared,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.BytesLoggerFactory(file=sys.stderr.buffer),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info,
                    structlog.processors.JSONRenderer(
                        serializer=lambda event, **kw: _dumps(event, **kw).decode())]))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # Libraries at info at most: aiokafka's debug output holds whole record values.
    root.setLevel(max(numeric, logging.INFO))
    logging.captureWarnings(True)


def get_logger(stage: str) -> structlog.typing.FilteringBoundLogger:
    """A logger bound to the stage name; bind topic/partition/offset/ids per message."""
    return structlog.get_logger("citeflow").bind(stage=stage)


def rejection_fields(message: Any, rejected: list[Any]) -> dict[str, Any]:
    """What a stage's `rejected` line says: the rejections' codes and messages, and the
    input's event id read from its envelope when no header carried it (raw submissions).
    Only rejections pay for this decoding."""
    codes, reasons = [], []
    for record in rejected:
        try:
            data = orjson.loads(record.value).get("data") or {}
        except (orjson.JSONDecodeError, AttributeError):
            continue
        codes.append(data.get("code"))
        reasons.append(str(data.get("message", ""))[:300])
    fields: dict[str, Any] = {"code": codes[0] if len(codes) == 1 else codes,
                              "reason": reasons[0] if len(reasons) == 1 else reasons}
    if not any(k == "ce_id" for k, _ in message.headers):
        try:
            envelope = orjson.loads(message.value)
        except orjson.JSONDecodeError:
            return fields
        if isinstance(envelope, dict) and isinstance(envelope.get("id"), str):
            fields["event_id"] = envelope["id"]
    return fields
