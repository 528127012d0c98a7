"""Building the resolution's models from trusted, complete values.

The stage makes some 200 small models per answer (units, spans, locators, selectors, links).
Validating them costs more than all of span resolution, and every value is built here from
already-validated input, so they are made with `services.citations.build.construct` (the
instance state `model_construct` would leave, without re-walking fields). Every builder in
this module names every field of its model; a test checks that the result survives a
validating round trip unchanged.
"""

from __future__ import annotations

from typing import Any

from schemas.base import Problem
from schemas.spans import (
    AnswerUnit,
    Link,
    Locator,
    SourceSpan,
    SpanResolution,
    TextQuoteSelector,
)
from services.citations.build import construct


def selector_model(exact: str, prefix: str, suffix: str) -> TextQuoteSelector:
    """A TextQuoteSelector."""
    return construct(
        TextQuoteSelector,
        {
            "type": "TextQuoteSelector",
            "exact": exact,
            "prefix": prefix,
            "suffix": suffix,
        },
    )


def locator_model(
    kind: str,
    selector: TextQuoteSelector,
    *,
    href: str | None = None,
    page: int | None = None,
    section_id: str | None = None,
    url: str | None = None,
) -> Locator:
    """A locator of container `kind` around `selector`."""
    return construct(
        Locator,
        {
            "type": kind,
            "href": href,
            "page": page,
            "section_id": section_id,
            "url": url,
            "selector": selector,
        },
    )


def span_model(values: dict[str, Any]) -> SourceSpan:
    """A SourceSpan from all of its fields."""
    return construct(SourceSpan, values)


def unit_model(values: dict[str, Any]) -> AnswerUnit:
    """An AnswerUnit from all of its fields."""
    return construct(AnswerUnit, values)


def link_model(values: dict[str, Any]) -> Link:
    """A Link from all of its fields."""
    return construct(Link, values)


def resolution_model(
    units: list[AnswerUnit], links: list[Link], problems: list[Problem]
) -> SpanResolution:
    """The resolution."""
    return construct(
        SpanResolution, {"units": units, "links": links, "problems": problems}
    )
