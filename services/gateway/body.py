"""Reading a request body under a byte limit without ever reading past it: a declared
Content-Length over the limit is refused before any byte is read, and a streamed body is
abandoned as soon as it passes the limit (the connection is then closed by the server)."""

from __future__ import annotations

from starlette.requests import Request

from services.gateway.problems import ProblemError


def _too_large(limit: int, what: str) -> ProblemError:
    # `Connection: close` makes uvicorn close the connection after the response; without
    # it, it kept reading (and discarding) the rest of a chunked body: 300 MB (issue 22).
    return ProblemError(413, "too_large", f"{what} over the limit of {limit} bytes",
                        extra={"limit_bytes": limit}, headers={"Connection": "close"})


async def read_limited(request: Request, limit: int) -> bytes:
    """The whole body, or a 413 ProblemError once more than `limit` bytes are announced or
    received."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ProblemError(400, "invalid_content_length", "Content-Length is not a number")
        if int(declared) > limit:
            raise _too_large(limit, f"the body is {int(declared)} bytes,")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit, "the body is")
        chunks.append(chunk)
    return b"".join(chunks)
