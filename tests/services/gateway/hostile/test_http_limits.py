"""What a client can do to the gateway before any key is checked: heads too large or too
slow, bodies too large or stalled, a 413 that closes the connection, and an address that
keeps sending such requests."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import httpx
import pytest

from services.gateway.http_guard import MAX_HEAD_BYTES, REFUSALS_BURST, REFUSALS_PER_S

from tests.services.gateway.hostile.conftest import HEAD_TIMEOUT_S, Hostile

pytestmark = pytest.mark.integration

CHUNK = 64 * 1024


def _read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes; the socket's timeout bounds each wait, and
    running into it fails the test (the server was to close the connection)."""
    out = b""
    while True:
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            return out
        except TimeoutError:
            raise AssertionError(f"the server kept the connection open: {out[:80]!r}") from None
        if not data:
            return out
        out += data


def _send_until_refused(sock: socket.socket, chunks: int, chunk: bytes) -> int:
    """Send up to `chunks` chunks; how many went before the server refused more."""
    for sent in range(chunks):
        try:
            sock.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            return sent
    return chunks


def test_an_oversized_head_gets_431_and_is_closed(hostile: Hostile) -> None:
    """A 32 MB header was answered 200."""
    with hostile.connect() as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
        sent = _send_until_refused(sock, 512, b"a" * CHUNK)  # at most 32 MB
        if sent == 512:
            sock.sendall(b"\r\n\r\n")
        response = _read_all(sock)
    assert response.startswith(b"HTTP/1.1 431"), response[:80]
    assert sent < 512


def test_an_oversized_head_in_one_read_gets_431(hostile: Hostile) -> None:
    """A 120,000-byte head sent at once was answered 200: the limit counted only across
    reads, and a head that completed within one read was never measured."""
    head = (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 120_000
            + b"\r\nConnection: close\r\n\r\n")
    with hostile.connect() as sock:
        sock.sendall(head)
        response = _read_all(sock)
    assert response.startswith(b"HTTP/1.1 431"), response[:80]
    # Just under the limit, the same request is served.
    fits = head.replace(b"a" * 120_000, b"a" * (MAX_HEAD_BYTES - 200))
    with hostile.connect() as sock:
        sock.sendall(fits)
        assert _read_all(sock).startswith(b"HTTP/1.1 200")


def test_a_half_sent_head_is_closed_at_its_deadline(hostile: Hostile) -> None:
    """A half-sent head kept a connection open for 100 s and more."""
    with hostile.connect() as sock:
        sock.settimeout(HEAD_TIMEOUT_S * 10)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        assert _read_all(sock).startswith(b"HTTP/1.1 408")


def test_a_silent_connection_is_closed_at_the_head_deadline(hostile: Hostile) -> None:
    with hostile.connect() as sock:
        sock.settimeout(HEAD_TIMEOUT_S * 10)
        assert _read_all(sock).startswith(b"HTTP/1.1 408")


def test_trickling_a_head_does_not_extend_its_deadline(hostile: Hostile) -> None:
    """One header line every few seconds kept a connection for 90 s and more."""
    lines = 0
    with hostile.connect() as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        for lines in range(1, 40):  # 40 lines over 40 deadlines' time at most
            time.sleep(HEAD_TIMEOUT_S / 4)
            try:
                sock.sendall(f"X-Line-{lines}: y\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                break
            sock.setblocking(False)
            try:
                if sock.recv(1, socket.MSG_PEEK) is not None:
                    break
            except BlockingIOError:
                pass
            finally:
                sock.setblocking(True)
    assert lines < 39


def test_an_oversize_chunked_body_gets_413_and_the_connection_closes(hostile: Hostile) -> None:
    """The 413 said the connection was closed; the server kept reading (300 MB)."""
    with hostile.connect() as sock:
        sock.sendall(b"POST /v1/answers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nTransfer-Encoding: chunked\r\nAuthorization: Bearer "
                     + hostile.a.encode() + b"\r\n\r\n")
        frame = f"{CHUNK:x}\r\n".encode() + b" " * CHUNK + b"\r\n"
        sent = _send_until_refused(sock, 1024, frame)  # at most 64 MB
        response = _read_all(sock)
    assert b" 413 " in response.split(b"\r\n", 1)[0], response[:200]
    assert sent < 1024


@pytest.mark.parametrize("key", ["unknown", "limited"])
def test_an_answer_before_the_body_is_in_closes_the_connection(hostile: Hostile,
                                                               key: str) -> None:
    """A 401 (or a 429 for a key out of tokens) sent before a chunked body was all in left
    the server reading on: the rest of the body was taken for the next request's head (a
    stray 431 after the answer)."""
    secret = {"unknown": "cf_unknown", "limited": hostile.limited}[key]
    with hostile.connect() as sock:
        sock.sendall(b"POST /v1/answers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nTransfer-Encoding: chunked\r\nAuthorization: Bearer "
                     + secret.encode() + b"\r\n\r\n")
        frame = f"{CHUNK:x}\r\n".encode() + b" " * CHUNK + b"\r\n"
        sent = _send_until_refused(sock, 1024, frame)  # at most 64 MB
        response = _read_all(sock)
    assert sent < 1024
    status = {"unknown": b" 401 ", "limited": b" 429 "}[key]
    assert status in response.split(b"\r\n", 1)[0], response[:200]
    assert response.count(b"HTTP/1.1 ") == 1, response  # the answer, then the close


def test_a_pipelined_request_keeps_its_body_when_the_one_before_is_answered(
        hostile: Hostile) -> None:
    """Only the answered request's unread body closes the connection, not the body of a
    request pipelined behind it, and that body is not counted as a head."""
    with hostile.connect() as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                     b"POST /v1/answers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n"
                     b"Authorization: Bearer " + hostile.a.encode() + b"\r\n\r\n5\r\n{\"a\":\r\n")
        time.sleep(0.5)  # /healthz is answered while the POST's body is still coming
        # More than a head may hold: still the POST's body, not a head after the answer.
        rest = b" " * (MAX_HEAD_BYTES + 1024) + b"1"
        sock.sendall(f"{len(rest):x}\r\n".encode() + rest + b"\r\n0\r\n\r\n")
        responses = _read_all(sock)
    assert responses.startswith(b"HTTP/1.1 200"), responses[:200]
    assert responses.count(b"HTTP/1.1 ") == 2, responses  # the POST answered too (a 4xx)
    assert b" 431 " not in responses, responses[-300:]


def test_a_stalled_body_is_cut_off(hostile: Hostile) -> None:
    with hostile.connect() as sock:
        sock.settimeout(HEAD_TIMEOUT_S * 10)
        sock.sendall(b"POST /v1/answers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nContent-Length: 5000\r\nAuthorization: Bearer "
                     + hostile.a.encode() + b"\r\n\r\n{\"answer")
        response = _read_all(sock)  # closed by the server, not by our timeout
    assert not response.startswith(b"HTTP/1.1 2")


def _from(hostile: Hostile, address: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", hostile.port), timeout=10,
                                    source_address=(address, 0))


def _oversized_head(sock: socket.socket, hostile: Hostile) -> None:
    # Exactly one byte past the limit: the server reads all of it, so its close is a FIN
    # and the 431 arrives (unread bytes would turn the close into a reset).
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: "
    sock.sendall(head + b"a" * (MAX_HEAD_BYTES + 1 - len(head)))


def _oversize_body(sock: socket.socket, hostile: Hostile) -> None:
    sock.sendall(b"POST /v1/answers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                 b"\r\nTransfer-Encoding: chunked\r\nAuthorization: Bearer "
                 + hostile.a.encode() + b"\r\n\r\n")
    _send_until_refused(sock, 1024, f"{CHUNK:x}\r\n".encode() + b" " * CHUNK + b"\r\n")


@pytest.mark.parametrize(("address", "send", "status"), [
    ("127.0.0.3", _oversized_head, b" 431 "), ("127.0.0.5", _oversize_body, b" 413 ")])
def test_an_address_whose_requests_keep_being_cut_off_is_shut_out(
        hostile: Hostile, address: str, send: Callable[[socket.socket, Hostile], None],
        status: bytes) -> None:
    """Each oversized head or body cost the event loop a parser, a deadline, a head and a
    response, as fast as one client could reconnect (thousands a second)."""

    def attempt() -> bytes:
        with _from(hostile, address) as sock:
            try:
                send(sock, hostile)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return _read_all(sock)

    responses = [attempt() for _ in range(int(REFUSALS_BURST) + 5)]
    assert status in responses[0].split(b"\r\n", 1)[0], responses[0][:80]
    assert responses[-1] == b""  # closed on arrival, before a byte of a response
    # Another address is served.
    with _from(hostile, "127.0.0.4") as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert _read_all(sock).startswith(b"HTTP/1.1 200")
    assert httpx.get(hostile.url + "/healthz", timeout=10).status_code == 200
    # The address refills at REFUSALS_PER_S: served again within a few seconds.
    deadline = time.monotonic() + 10 / REFUSALS_PER_S
    while True:
        with _from(hostile, address) as sock:
            try:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            if _read_all(sock).startswith(b"HTTP/1.1 200"):
                break
        assert time.monotonic() < deadline, "the address stayed shut out"
        time.sleep(0.2)
