"""The input lists the formatting stage reads, as their JSON, not made into models.

On a record rebuilt lazily (schemas.trusted) the resolved event's lists (the extraction's
citations and clusters, the resolution's units, support and problems, the scores) are
held as their bytes until read; reading one as an attribute parses it and rebuilds every
member as a model (schemas.construct.rebuild), only for the logic to read each model's
field table and for the encoding to turn the models back into JSON. `members` parses the
bytes and hands the JSON objects over as they are (a validated record's field holds its
models: those are handed over); a field only read is then written out again as the bytes
it arrived as (`schemas.trusted.passed_on`).
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel

from schemas.construct import fill_defaults, plan
from schemas.trusted import passed_on

# A member's field values by name (nested models may be JSON objects too: read them with `row`).
Row = dict[str, Any]


def members(model: BaseModel, name: str) -> list[Any]:
    """The members of list field `name` of `model` as the field holds them: JSON objects
    (None for a null member) or models. A JSON object that lacks fields, written by an
    older minor version, is given their defaults, as a model rebuilt from it would be."""
    found = passed_on(model, name)
    if type(found) is orjson.Fragment:  # (the member kept as its bytes)
        found = orjson.loads(orjson.dumps(found))
    first = next((member for member in found if member is not None), None)
    if type(first) is not dict:
        return found  # (models, or no member)
    member_class = _member_class(type(model), name)
    size = len(member_class.model_fields)
    for member in found:
        if member is not None and len(member) < size:
            fill_defaults(member_class, member)
    return found


def rows(model: BaseModel, name: str) -> list[Row]:
    """The field values of each member of list field `name` of `model` (none null)."""
    return [
        member if type(member) is dict else member.__dict__ for member in members(model, name)
    ]


def row(value: Any) -> Row:
    """The field values of a member or of a nested model read from a `Row`: a JSON object
    or a model."""
    return value if type(value) is dict else value.__dict__


_MEMBER_CLASSES: dict[tuple[type[BaseModel], str], type[BaseModel]] = {}


def _member_class(owner: type[BaseModel], name: str) -> type[BaseModel]:
    """The model class of the members of list field `name` of `owner`."""
    found = _MEMBER_CLASSES.get((owner, name))
    if found is None:
        found = next((model for field, _, model in plan(owner) if field == name), None)
        if found is None:
            raise TypeError(f"{owner.__name__}.{name} is not a list of models")
        _MEMBER_CLASSES[(owner, name)] = found
    return found
