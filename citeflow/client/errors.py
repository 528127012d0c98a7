"""The one exception of the client: a problem+json document (RFC 9457) from the gateway, or
one the client makes for a failure of its own (network, timeout)."""

from __future__ import annotations

from typing import Any


class CiteflowError(Exception):
    """An error answered by the gateway (its problem+json in `problem`) or met on the way.

    `status` is the HTTP status (0 when no response came), `code` the problem's stable code
    (e.g. `invalid_answer`, `rate_limited`, `network_error`, `timeout`)."""

    def __init__(self, problem: dict[str, Any], *, retry_after: float | None = None) -> None:
        self.problem = problem
        self.status = int(problem.get("status") or 0)
        self.code = str(problem.get("code") or "error")
        self.detail = str(problem.get("detail") or problem.get("title") or self.code)
        self.retry_after = retry_after
        super().__init__(f"{self.status or '-'} {self.code}: {self.detail}")

    @classmethod
    def local(cls, code: str, detail: str) -> CiteflowError:
        """An error of the client's own (no response from the gateway)."""
        return cls({"type": "about:blank", "title": code, "status": 0, "code": code,
                    "detail": detail})
