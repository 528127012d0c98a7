"""Documents over HTTP and the reader's views (issue 14 item 1)."""

from services.gateway.documents.routes import routes

__all__ = ["routes"]
