"""Bulk validation of the resolution.

The stage builds its output as plain payloads (dicts) and validates them in a few calls
rather than instantiating some 200 models one by one: pydantic validates nested payloads in
Rust, which is several times cheaper per model. Locators, shared by many spans and links, are
validated once each and placed into the payloads as model instances (kept as they are).
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from schemas.base import Problem
from schemas.spans import Locator, SpanResolution

Payload = dict[str, Any]

_LOCATORS = TypeAdapter(list[Locator])


def validate_locators(payloads: list[Payload]) -> list[Locator]:
    """Locator payloads as models, in order."""
    return _LOCATORS.validate_python(payloads)


def resolution(
    units: list[Payload], links: list[Payload], problems: list[Problem], locators: dict[int, Locator]
) -> SpanResolution:
    """The validated resolution, locator payloads replaced by their validated models."""
    for unit in units:
        for span in unit["source_spans"]:
            span["locator"] = locators[id(span["locator"])]
    for link in links:
        if link["locator"] is not None:
            link["locator"] = locators[id(link["locator"])]
    return SpanResolution.model_validate({"units": units, "links": links, "problems": problems})
