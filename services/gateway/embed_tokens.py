"""Embed tokens: a short-lived bearer credential that reads one answer and the documents it
cites, for a page that embeds the component (a key on a page is the whole tenant's to
every visitor and script there).

Wire form `cfe1.` + base64url(JSON grant) + `.` + base64url(HMAC-SHA256 of the grant), the
key derived from the gateway's secret (`CITEFLOW_STREAM_ID_KEY`, or the one made in the
data directory), so every replica accepts what any issued. Issued by
`POST /v1/answers/{answer_id}/embed-token` with a `read` key of the answer's tenant; not
revocable before it expires (keep the lifetime short)."""

from __future__ import annotations

import base64
import binascii
import hmac
import time
from dataclasses import dataclass

import orjson

from services.gateway.secret import derived_key

PREFIX = "cfe1."
MAX_TOKEN_CHARS = 8192
DEFAULT_TTL_S = 3600
MAX_TTL_S = 86_400
_KEY = derived_key(b"embed token")


@dataclass(frozen=True)
class EmbedGrant:
    """What a token reads: one answer of one tenant, and the documents it cites."""

    tenant: str
    answer_id: str
    doc_ids: tuple[str, ...]
    expires_at: int  # unix seconds

    def allows(self, method: str, path: str) -> bool:
        """Whether a request (`path` decoded, as routes match it) reads only what was
        granted: the answer, and the routes under each cited document (chapters, pages,
        images, highlights)."""
        if method not in ("GET", "HEAD"):
            return False
        if path == "/v1/answers/" + self.answer_id:
            return True
        return any(path.startswith(f"/v1/documents/{d}/") for d in self.doc_ids)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def issue(grant: EmbedGrant) -> str:
    body = orjson.dumps({"t": grant.tenant, "a": grant.answer_id, "d": list(grant.doc_ids),
                         "x": grant.expires_at})
    return PREFIX + _b64(body) + "." + _b64(hmac.digest(_KEY, body, "sha256"))


def is_embed_token(secret: str) -> bool:
    return secret.startswith(PREFIX)


def verify(token: str, now: float | None = None) -> EmbedGrant | None:
    """The grant of a token this gateway issued and that has not expired; else None."""
    if len(token) > MAX_TOKEN_CHARS or not token.startswith(PREFIX):
        return None
    body_text, _, seal_text = token[len(PREFIX):].partition(".")
    try:
        body, seal = _unb64(body_text), _unb64(seal_text)
    except (binascii.Error, ValueError):
        return None
    if not hmac.compare_digest(hmac.digest(_KEY, body, "sha256"), seal):
        return None
    fields = orjson.loads(body)
    grant = EmbedGrant(fields["t"], fields["a"], tuple(fields["d"]), int(fields["x"]))
    return grant if grant.expires_at > (time.time() if now is None else now) else None


def grant_for(tenant: str, answer_id: str, doc_ids: list[str], ttl_s: int) -> EmbedGrant:
    """A grant of `ttl_s` seconds (at most MAX_TTL_S) from now."""
    ttl = max(1, min(ttl_s, MAX_TTL_S))
    return EmbedGrant(tenant, answer_id, tuple(sorted(set(doc_ids))), int(time.time()) + ttl)
