"""Reading a request body under a byte limit without ever reading past it: a declared
Content-Length over the limit is refused before any byte is read, and a streamed body is
abandoned as soon as it passes the limit (the connection is then closed by the server)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request

from services.gateway.problems import ProblemError


def _too_large(limit: int, what: str) -> ProblemError:
    # `Connection: close` makes uvicorn close the connection after the response; without
    # it, it kept reading (and discarding) the rest of a chunked body: 300 MB.
    return ProblemError(413, "too_large", f"{what} over the limit of {limit} bytes",
                        extra={"limit_bytes": limit}, headers={"Connection": "close"})


# A body costs its key one request token per this many bytes past the first (a
# key sending oversize bodies once made the gateway read 4 MiB for each request token).
BYTES_PER_TOKEN = 64 * 1024


async def read_limited(request: Request, limit: int,
                       charge: Callable[[float], None] | None = None) -> bytes:
    """The whole body, or a 413 ProblemError once more than `limit` bytes are announced or
    received. `charge(tokens)` is called for every BYTES_PER_TOKEN received (it raises
    the 429 of a key out of tokens; the connection is then closed too)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ProblemError(400, "invalid_content_length", "Content-Length is not a number")
        if int(declared) > limit:
            raise _too_large(limit, f"the body is {int(declared)} bytes,")
    chunks: list[bytes] = []
    size = charged = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit, "the body is")
        if charge is not None and size // BYTES_PER_TOKEN > charged:
            tokens, charged = size // BYTES_PER_TOKEN - charged, size // BYTES_PER_TOKEN
            try:
                charge(tokens)
            except ProblemError as exc:
                exc.headers["Connection"] = "close"  # the rest of the body is not read
                raise
        chunks.append(chunk)
    return b"".join(chunks)
