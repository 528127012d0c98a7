"""Documents: EPUB/PDF ingest, sanitised chapters, page renders with highlights."""

from services.ingest.documents.handler import handle_submitted

__all__ = ["handle_submitted"]
