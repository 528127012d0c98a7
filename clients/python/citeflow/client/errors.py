"""The one exception of the client: a problem+json document (RFC 9457) from the gateway, or
one the client makes for a failure of its own (network, timeout), with what to do about it."""

from __future__ import annotations

from typing import Any

# What to do, by problem code: said after the gateway's own detail.
HINTS = {
    "answer_id_conflict": "an answer_id names one answer: submit this body under a new "
                          "answer_id (or none, and the client makes one), or send the first "
                          "body again to read its result",
    "unauthorized": "pass api_key= or set CITEFLOW_API_KEY (`make run` prints a demo key; "
                    "`citeflow keys create` on the server makes one)",
    "missing_scope": "use a key with that scope (`citeflow keys create --scopes ...`)",
    "network_error": "is the gateway running at that address? (`make run` or "
                     "`citeflow serve` starts one; CITEFLOW_URL or url= points the client at it)",
    "invalid_answer": "fix the field named above and submit again",
}


class CiteflowError(Exception):
    """An error answered by the gateway (its problem+json in `problem`) or met on the way.

    `status` is the HTTP status (0 when no response came), `code` the problem's stable code
    (e.g. `invalid_answer`, `rate_limited`, `network_error`, `timeout`), `hint` what to do
    about it when the client knows."""

    def __init__(self, problem: dict[str, Any], *, retry_after: float | None = None,
                 hint: str | None = None) -> None:
        self.problem = problem
        self.status = int(problem.get("status") or 0)
        self.code = str(problem.get("code") or "error")
        self.detail = str(problem.get("detail") or problem.get("title") or self.code)
        self.retry_after = retry_after
        self.hint = hint or HINTS.get(self.code)
        said = f"{self.status or '-'} {self.code}: {self.detail}"
        super().__init__(f"{said} ({self.hint})" if self.hint else said)

    @classmethod
    def local(cls, code: str, detail: str, hint: str | None = None) -> CiteflowError:
        """An error of the client's own (no response from the gateway)."""
        return cls({"type": "about:blank", "title": code, "status": 0, "code": code,
                    "detail": detail}, hint=hint)
