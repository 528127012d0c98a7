"""The reader's pages (issue 14 items 2-3): the answer viewer and the dashboard."""

from services.gateway.pages.routes import routes

__all__ = ["routes"]
