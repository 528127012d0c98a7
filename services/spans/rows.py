"""The members of an input's list field read as their field values, not made into models.

On a record rebuilt lazily (schemas.trusted), a list field nobody has read yet holds its
parsed JSON; reading it as an attribute rebuilds every member as a model
(schemas.construct.rebuild), which the event's encoding then turns back into JSON, one
callback a model. The spans stage reads only the values of the extraction's citations,
clusters, sentences and passages and of the scores: `rows` gives each member's field table
as it is (a JSON object; a model's `__dict__` where the field holds models already, as on a
validated record), and the field is written out again unread.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import BaseModel

from schemas.construct import fill_defaults, plan
from schemas.trusted import passed_on

# A member's field values by name (nested models may be JSON objects: read them with `row`).
Row = dict[str, Any]


def rows(model: BaseModel, name: str) -> list[Row]:
    """The field values of each member of list field `name` of `model` (a JSON object that
    lacks fields, written by an older minor version, given their defaults as a model
    rebuilt from it would be)."""
    found = passed_on(model, name)
    if type(found) is not list:  # (a member kept as its bytes: read as models)
        found = getattr(model, name)
    key = (type(model), name)
    known = _MEMBERS.get(key)
    if known is None:
        member_class = _member_class(model, name)
        known = _MEMBERS[key] = (member_class, len(member_class.model_fields))
    member_class, size = known
    found_rows = []
    for member in found:
        if type(member) is not dict:
            member = member.__dict__
        elif len(member) < size:
            fill_defaults(member_class, member)
        found_rows.append(member)
    return found_rows


# The member class and its number of fields, by container class and field name.
_MEMBERS: dict[tuple[type[BaseModel], str], tuple[type[BaseModel], int]] = {}


def _member_class(model: BaseModel, name: str) -> type[BaseModel]:
    """The model class of the members of list field `name` of `model`."""
    for field, _, member_class in plan(type(model)):
        if field == name:
            return cast("type[BaseModel]", member_class)
    raise TypeError(f"{type(model).__name__}.{name} is not a list of models")


def row(value: Any) -> Row:
    """The field values of a nested model read from a `Row`: a JSON object or a model."""
    return value if type(value) is dict else value.__dict__
