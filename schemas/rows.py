"""The list fields of an event read as their JSON objects, not made into models.

On a record rebuilt lazily (schemas.trusted), a list field nobody has read yet holds its
parsed JSON, or its bytes where the record was written with parts; reading it as an
attribute rebuilds every member as a model (schemas.construct.rebuild), only for the stage
logic to read each model's field table and for the event's encoding to turn the models back
into JSON, one callback a model. `members` hands the JSON objects over as they are (a
validated record's field holds its models: those are handed over), `rows` their field
tables; a field only read is then written out again unread (`schemas.trusted.passed_on`).
A JSON object that lacks fields, written by an older minor version, is given their
defaults, as a model rebuilt from it would be.
"""

from __future__ import annotations

from typing import Any, cast

import orjson
from pydantic import BaseModel

from schemas.construct import fields_set, fill_defaults, plan
from schemas.trusted import passed_on

# A member's field values by name (nested models may be JSON objects too: read them with `row`).
Row = dict[str, Any]


def members(model: BaseModel, name: str) -> list[Any]:
    """The members of list field `name` of `model` as the field holds them: JSON objects
    (None for a null member) or models."""
    found = passed_on(model, name)
    if type(found) is orjson.Fragment:  # (the field kept as its bytes: parsed here)
        found = orjson.loads(orjson.dumps(found))
    first = next((member for member in found if member is not None), None)
    if type(first) is not dict:
        return cast("list[Any]", found)  # (models, or no member)
    member_class, size = _member_class(type(model), name)
    _fill(member_class, size, found)
    return cast("list[Any]", found)


def field_tables(cls: type[BaseModel], values: list[Any]) -> list[Row]:
    """The field values of each of `values` (none null): all `cls` models (of a validated
    record), or all their JSON objects (of a record read back), given their defaults as
    `members` gives them."""
    if not values or type(values[0]) is not dict:
        return [value.__dict__ for value in values]
    _fill(cls, len(fields_set(cls)), values)
    return values


def _fill(cls: type[BaseModel], size: int, found: list[Any]) -> None:
    """Give each JSON object of `found` with fewer than `size` fields (written by an older
    minor version) the defaults of the `cls` fields it lacks, as a rebuilt model has them."""
    for member in found:
        if member is not None and len(member) < size:
            fill_defaults(cls, member)


def rows(model: BaseModel, name: str) -> list[Row]:
    """The field values of each member of list field `name` of `model` (none null), in a
    list of their own."""
    found = members(model, name)
    # (the members are all JSON objects, copied in C, or all models)
    if found and type(found[0]) is dict:
        return list(found)
    return [member.__dict__ for member in found]


def row(value: Any) -> Row:
    """The field values of a member or of a nested model read from a `Row`: a JSON object
    or a model."""
    return cast("Row", value if type(value) is dict else value.__dict__)


# The member class of a list field and its number of fields, by container class and name
# (pydantic's `model_fields` is a property that costs thousands of instructions a read).
_MEMBERS: dict[tuple[type[BaseModel], str], tuple[type[BaseModel], int]] = {}


def _member_class(owner: type[BaseModel], name: str) -> tuple[type[BaseModel], int]:
    """The model class of the members of list field `name` of `owner`, and its field count."""
    key = (owner, name)
    found = _MEMBERS.get(key)
    if found is None:
        model = next((model for field, _, model in plan(owner) if field == name), None)
        if model is None:
            raise TypeError(f"{owner.__name__}.{name} is not a list of models")
        found = _MEMBERS[key] = (model, len(model.model_fields))
    return found
