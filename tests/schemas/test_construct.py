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


def test_rebuild_gives_what_validation_gives() -> None:
    """Every event of the five hops, rebuilt from its JSON without validation, equals the
    validated one field for field and writes the same bytes; a JSON integer in a float field
    becomes a float, as validation makes it."""
    import orjson

    from schemas.construct import rebuild
    from schemas.envelope import payload_json
    from services.bench.toy import real_events

    for event in real_events():
        written = payload_json(event)
        validated = type(event).model_validate_json(written)
        rebuilt = rebuild(type(event), orjson.loads(written))
        assert rebuilt == validated
        assert payload_json(rebuilt) == written
    from schemas.spans import Link

    link = orjson.loads(payload_json(Link.model_validate(
        {"citation_id": 1, "sentence_index": 0, "source_index": 1, "score": 1.0})))
    link["score"] = 1  # an integer where the model holds a float
    rebuilt_link = rebuild(Link, link)
    assert type(rebuilt_link.score) is float and rebuilt_link.score == 1.0


def test_a_rebuilt_model_names_the_fields_its_values_name() -> None:
    """A model rebuilt from values naming every field shares its class's fields-set; one
    rebuilt from fewer names just those (as validation would)."""
    from schemas.construct import fields_set, rebuild

    every = {"type": "TextQuoteSelector", "exact": "a", "prefix": "b", "suffix": "c"}
    whole = rebuild(TextQuoteSelector, dict(every))
    assert whole.model_fields_set is fields_set(TextQuoteSelector)
    assert whole.model_fields_set == TextQuoteSelector.model_validate(every).model_fields_set
    fewer = rebuild(TextQuoteSelector, {"type": "TextQuoteSelector", "exact": "a"})
    assert fewer.model_fields_set == {"type", "exact"}
    assert fewer.model_fields_set is not fields_set(TextQuoteSelector)


def test_a_rebuilt_model_lacking_an_optional_field_gets_its_default() -> None:
    """A record of an older minor version lacks the fields added since: rebuilt, it holds
    their defaults, as the validated one does."""
    import orjson

    from schemas.construct import rebuild
    from schemas.envelope import payload_json
    from schemas.scoring import AnswerScored
    from services.bench.toy import real_events

    scored = next(e for e in real_events() if isinstance(e, AnswerScored))
    older = orjson.loads(payload_json(scored))
    del older["carried"], older["passage_sources"]
    rebuilt = rebuild(AnswerScored, dict(older))
    assert rebuilt == AnswerScored.model_validate(older)
    assert rebuilt.carried is None and rebuilt.passage_sources == []
    assert "carried" not in rebuilt.model_fields_set
