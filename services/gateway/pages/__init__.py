"""The reader's pages: the answer viewer and the dashboard."""

from services.gateway.pages.routes import routes

__all__ = ["routes"]
