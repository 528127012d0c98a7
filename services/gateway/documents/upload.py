"""Receiving one document upload (`multipart/form-data`) under a size limit, streaming.

The body is fed chunk by chunk to python-multipart's parser: the `file` part goes straight
into a temporary file while its SHA-256 is computed, small text fields (`doc_id`, `title`)
are kept in memory, and the upload is abandoned (413) the moment the file passes the limit;
a declared Content-Length over the limit is refused before anything is read.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from services.gateway.problems import ProblemError

FIELDS = frozenset({"doc_id", "title"})
MAX_FIELD_BYTES = 1000
# Room for the multipart framing and the small fields on top of the file itself.
FRAMING_BYTES = 64 * 1024


@dataclass
class Upload:
    """A received file (in a temporary file) with its digest and the form's fields."""

    path: Path
    size: int
    sha256: str
    head: bytes
    fields: dict[str, str] = field(default_factory=dict)


class _Receiver:
    """python-multipart callbacks: one file part to disk, a few small fields to memory."""

    def __init__(self, directory: Path, limit: int) -> None:
        self.limit = limit
        self.directory = directory
        self.headers: dict[bytes, bytes] = {}
        self.header_name = b""
        self.header_value = b""
        self.name: str | None = None
        self.is_file = False
        self.buffer = bytearray()
        self.file: IO[bytes] | None = None
        self.digest = hashlib.sha256()
        self.size = 0
        self.head = b""
        self.fields: dict[str, str] = {}

    def callbacks(self) -> Any:
        return {
            "on_part_begin": self.part_begin,
            "on_header_field": lambda data, start, end: self._header(data[start:end], True),
            "on_header_value": lambda data, start, end: self._header(data[start:end], False),
            "on_header_end": self.header_end,
            "on_headers_finished": self.headers_finished,
            "on_part_data": self.part_data,
            "on_part_end": self.part_end,
        }

    def part_begin(self) -> None:
        self.headers, self.header_name, self.header_value = {}, b"", b""
        self.buffer = bytearray()

    def _header(self, data: bytes, name: bool) -> None:
        if name:
            self.header_name += data
        else:
            self.header_value += data

    def header_end(self) -> None:
        self.headers[self.header_name.lower()] = self.header_value
        self.header_name, self.header_value = b"", b""

    def headers_finished(self) -> None:
        _, options = parse_options_header(self.headers.get(b"content-disposition", b""))
        self.name = options.get(b"name", b"").decode("utf-8", "replace")
        self.is_file = self.name == "file"
        if self.is_file:
            if self.file is not None:
                raise ProblemError(400, "invalid_upload", "send exactly one 'file' part")
            # Spans many parser callbacks: closed by receive_upload (kept) or discard.
            self.file = tempfile.NamedTemporaryFile(  # noqa: SIM115
                dir=self.directory, delete=False)
        elif self.name not in FIELDS:
            raise ProblemError(400, "invalid_upload", f"unknown form field {self.name!r}",
                               path=f"$.{self.name}")

    def part_data(self, data: bytes, start: int, end: int) -> None:
        piece = data[start:end]
        if not self.is_file:
            self.buffer += piece
            if len(self.buffer) > MAX_FIELD_BYTES:
                raise ProblemError(400, "invalid_upload", f"field {self.name!r} is too long",
                                   path=f"$.{self.name}")
            return
        self.size += len(piece)
        if self.size > self.limit:
            raise ProblemError(413, "too_large",
                               f"the document is over the limit of {self.limit} bytes",
                               extra={"limit_bytes": self.limit},
                               headers={"Connection": "close"})  # stop reading the rest
        if len(self.head) < 1024:
            self.head += piece[: 1024 - len(self.head)]
        self.digest.update(piece)
        assert self.file is not None
        self.file.write(piece)

    def part_end(self) -> None:
        if not self.is_file and self.name:
            try:
                self.fields[self.name] = bytes(self.buffer).decode("utf-8").strip()
            except UnicodeDecodeError:
                raise ProblemError(400, "invalid_upload", f"field {self.name!r} is not UTF-8",
                                   path=f"$.{self.name}") from None

    def discard(self) -> None:
        if self.file is not None:
            self.file.close()
            Path(self.file.name).unlink(missing_ok=True)


async def receive_upload(request: Request, directory: Path, limit: int) -> Upload:
    """The uploaded document, or a ProblemError (400 malformed, 413 too large)."""
    content_type, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get(b"boundary")
    if content_type != b"multipart/form-data" or not boundary:
        raise ProblemError(415, "unsupported_media_type",
                           "upload the document as multipart/form-data with a 'file' part")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit + FRAMING_BYTES:
        raise ProblemError(413, "too_large",
                           f"the body is {declared} bytes, over the limit of {limit} bytes",
                           extra={"limit_bytes": limit}, headers={"Connection": "close"})
    directory.mkdir(parents=True, exist_ok=True)
    receiver = _Receiver(directory, limit)
    parser = MultipartParser(boundary, receiver.callbacks())
    try:
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except MultipartParseError as exc:
        receiver.discard()
        raise ProblemError(400, "invalid_upload", f"the multipart body is malformed: {exc}") \
            from None
    except BaseException:
        receiver.discard()
        raise
    if receiver.file is None or receiver.size == 0:
        receiver.discard()
        raise ProblemError(400, "invalid_upload", "the upload has no (or an empty) 'file' part",
                           path="$.file")
    receiver.file.close()
    return Upload(Path(receiver.file.name), receiver.size, receiver.digest.hexdigest(),
                  receiver.head, receiver.fields)
