"""Headless Chromium (with the XSS and CSP traps) for the component's tests."""

from tests.services.gateway.pages.conftest import driver  # noqa: F401
