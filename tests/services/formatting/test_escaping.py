"""`safe_url`: which source URLs become links, and how they are written."""

from __future__ import annotations

import pytest

from services.formatting.escaping import safe_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.org/a?q=1#f", "https://example.org/a?q=1#f"),
        ("  http://example.org/x \n", "http://example.org/x"),
        ("https://example.org/a?q=<x>", "https://example.org/a?q=%3Cx%3E"),
        ("http://bücher.example/x", "http://b%C3%BCcher.example/x"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        # Userinfo passes for a host in a link's text: dropped.
        ("http://user@example.org/", "http://example.org/"),
        ("https://apple.com@evil.example/login", "https://evil.example/login"),
        ("https://user:pw@apple.com:pw@evil.example:8443/x", "https://evil.example:8443/x"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
    ],
)
def test_http_and_mailto_urls_are_kept_and_quoted(url: str, expected: str) -> None:
    assert safe_url(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        None,
        "",
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "//example.org/no-scheme",
        "http:///no-host",
        "mailto:",
        # Hosts a browser refuses once decoded: the link would go nowhere.
        "http://www.<script>alert(1)</script .com",
        "http://%3Cx%3E.example/",
        "http://a b.example/",
        "http://[not-an-address]/",
    ],
)
def test_anything_else_is_not_a_link(url: str | None) -> None:
    assert safe_url(url) is None
