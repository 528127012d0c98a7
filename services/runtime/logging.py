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


def configure(level: str = "info") -> None:
    """One JSON object per line on stderr, with ISO timestamps and the log level."""
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ValueError(f"unknown log level {level!r}")
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.BytesLoggerFactory(file=sys.stderr.buffer),
        cache_logger_on_first_use=True,
    )


def get_logger(stage: str) -> structlog.typing.FilteringBoundLogger:
    """A logger bound to the stage name; bind topic/partition/offset/ids per message."""
    return structlog.get_logger("citeflow").bind(stage=stage)
