"""structlog JSON-lines logging for stage processes."""

from __future__ import annotations

import logging
import sys

import structlog


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
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


def get_logger(stage: str) -> structlog.typing.FilteringBoundLogger:
    """A logger bound to the stage name; bind topic/partition/offset/ids per message."""
    return structlog.get_logger("citeflow").bind(stage=stage)
