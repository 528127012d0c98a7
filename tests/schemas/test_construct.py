"""The trusted constructor leaves exactly what `model_construct` leaves."""

from __future__ import annotations

from schemas.construct import construct
from schemas.spans import Locator, TextQuoteSelector


def test_construct_matches_model_construct() -> None:
    selector = {"type": "TextQuoteSelector", "exact": "a", "prefix": "b", "suffix": "c"}
    fast = construct(TextQuoteSelector, dict(selector))
    slow = TextQuoteSelector.model_construct(**selector)
    assert fast == slow
    assert fast.__dict__ == slow.__dict__
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.__pydantic_extra__ is slow.__pydantic_extra__ is None
    assert fast.__pydantic_private__ is slow.__pydantic_private__ is None
    locator = {
        "type": "text",
        "href": None,
        "page": None,
        "section_id": "s",
        "url": None,
        "selector": fast,
    }
    built = construct(Locator, dict(locator))
    assert built == Locator.model_construct(**locator)
    assert Locator.model_validate(built.model_dump()) == built
