"""Uploading a demo answer's documents at start-up (`citeflow up --demo`): built from the
answer's own sources (`services.ingest.documents.demo`), sent through `POST /v1/documents`
like any upload, and waited for until ingest has processed them, so every chip of the demo
lands on a real highlight."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from services.ingest.documents.demo import DemoDocument, demo_documents


def _multipart(document: DemoDocument) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in (("doc_id", document.doc_id), ("title", document.title)):
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     f"{value}\r\n".encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                 f'filename="{document.doc_id}.{document.fmt}"\r\nContent-Type: '
                 "application/octet-stream\r\n\r\n".encode() + document.data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _request(url: str, key: str, body: bytes | None = None,
             content_type: str | None = None) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {key}"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=body, headers=headers,
                                     method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, orjson.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, orjson.loads(exc.read() or b"{}")


def upload_demo_documents(base: str, key: str, answers: Iterable[Mapping[str, Any]],
                          timeout: float = 60.0) -> dict[str, str]:
    """Upload the documents the answers cite and wait for ingest: doc_id -> final status
    (`ingested`, `rejected`, or the last status seen when `timeout` ran out)."""
    documents = {d.doc_id: d for answer in answers for d in demo_documents(answer)}
    statuses: dict[str, str] = {}
    for document in documents.values():
        body, content_type = _multipart(document)
        status, reply = _request(f"{base}/v1/documents", key, body, content_type)
        if status not in (200, 202):
            raise RuntimeError(f"upload of {document.doc_id} refused: HTTP {status} {reply}")
        statuses[document.doc_id] = reply.get("status", "submitted")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(
            value == "submitted" for value in statuses.values()):
        time.sleep(0.2)
        for doc_id, value in statuses.items():
            if value == "submitted":
                _, reply = _request(f"{base}/v1/documents/{doc_id}", key)
                statuses[doc_id] = reply.get("status", value)
    return statuses
