"""Gateway settings: environment variables with defaults, overridable by CLI flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from services.gateway.secret import named_key
from services.ingest.answers import max_answer_bytes
from services.runtime.config import RuntimeConfig
from services.store.engine import store_url

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def _number(env: dict[str, str] | os._Environ[str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number") from None
    if value <= 0:
        raise ValueError(f"{name}={raw!r} must be positive")
    return value


@dataclass(frozen=True)
class GatewaySettings:
    """Everything `create_app` needs."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    store_url: str = ""
    runtime: RuntimeConfig = field(default_factory=RuntimeConfig)
    # The ingest stage's own limit on one answer (413 above it).
    max_answer_bytes: int = field(default_factory=max_answer_bytes)
    # A JSON Lines batch: at most this many bytes and lines.
    max_batch_bytes: int = 16 * 1024 * 1024
    max_batch_lines: int = 1000
    # Per-key token bucket when the key sets no rate of its own: requests (batch: lines)
    # per second, and the burst it may spend at once.
    rate_per_s: float = 100.0
    burst_seconds: float = 2.0
    # Verified keys are cached this long in each process: a revoked key keeps working
    # for at most this many seconds.
    key_cache_seconds: float = 5.0
    # Requests without a valid key, per client address (each unknown key is a store
    # lookup): this many a second, in bursts of up to unauthenticated_burst.
    unauthenticated_rate_per_s: float = 5.0
    unauthenticated_burst: float = 20.0
    # `?wait=` is bounded by this.
    max_wait_s: float = 30.0
    # How long a submit waits for the broker's acknowledgement before answering 503.
    send_timeout_s: float = 10.0
    retry_after_s: int = 2

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> GatewaySettings:
        """Defaults, then environment variables, then explicit overrides (None = not given)."""
        env = os.environ if environ is None else environ
        named_key(env)  # a stream id key too short to be a secret stops the start here
        values: dict[str, Any] = {
            "host": env.get("CITEFLOW_HTTP_HOST") or DEFAULT_HOST,
            "port": int(_number(env, "CITEFLOW_HTTP_PORT", DEFAULT_PORT)),
            "store_url": store_url(dict(env)),
            "runtime": RuntimeConfig.from_env(dict(env)),
            "rate_per_s": _number(env, "CITEFLOW_RATE_LIMIT", cls.rate_per_s),
            "key_cache_seconds": _number(env, "CITEFLOW_KEY_CACHE_SECONDS",
                                         cls.key_cache_seconds),
            "max_wait_s": _number(env, "CITEFLOW_MAX_WAIT_SECONDS", cls.max_wait_s),
            "unauthenticated_rate_per_s": _number(env, "CITEFLOW_UNAUTHENTICATED_RATE",
                                                  cls.unauthenticated_rate_per_s),
        }
        settings = cls(**values)
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(settings, **given) if given else settings
