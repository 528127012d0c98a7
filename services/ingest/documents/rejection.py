"""The one exception of document ingest: a document refused with a stable reason code."""

from __future__ import annotations


class DocumentRejection(Exception):
    """A document that cannot be ingested or served; `code` is stable, `message` explains."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type[DocumentRejection], tuple[str, str]]:
        # Picklable with both fields: the reader's renderer processes raise it across.
        return (type(self), (self.code, self.message))
