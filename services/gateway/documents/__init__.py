"""Documents over HTTP and the reader's views."""

from services.gateway.documents.routes import routes

__all__ = ["routes"]
