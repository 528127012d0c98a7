"""Cross-origin reads for pages that embed `<citeflow-answer>` with a key of their own:
`CITEFLOW_CORS_ORIGINS` (comma-separated origins, or `*`) lets those origins call the
gateway with an `Authorization` header. Off by default. Keys travel in that header, never in
cookies, so no credentials mode is allowed (a page needs the key itself to read anything)."""

from __future__ import annotations

import os

from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware

ENV = "CITEFLOW_CORS_ORIGINS"
EXPOSED = ["Location", "ETag", "Retry-After", "Citeflow-Status", "Link", "X-Citeflow-Tenant"]


def origins(environ: dict[str, str] | None = None) -> list[str]:
    raw = (os.environ if environ is None else environ).get(ENV, "")
    return [o.strip().rstrip("/") for o in raw.split(",") if o.strip()]


def add_cors(app: Starlette, environ: dict[str, str] | None = None) -> None:
    """Wrap `app` in CORS for the configured origins (nothing when none are)."""
    allowed = origins(environ)
    if not allowed:
        return
    app.add_middleware(
        CORSMiddleware, allow_origins=allowed, allow_credentials=False,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "Idempotency-Key",
                       "Last-Event-ID", "If-None-Match"],
        expose_headers=EXPOSED, max_age=600)
