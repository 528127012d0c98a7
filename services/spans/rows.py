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

from typing import Any

from pydantic import BaseModel

from schemas.trusted import passed_on

# A member's field values by name (nested models may be JSON objects: read them with `row`).
Row = dict[str, Any]


def rows(model: BaseModel, name: str) -> list[Row]:
    """The field values of each member of list field `name` of `model`."""
    found = passed_on(model, name)
    if type(found) is not list:  # (a member kept as its bytes: read as models)
        found = getattr(model, name)
    return [member if type(member) is dict else member.__dict__ for member in found]


def row(value: Any) -> Row:
    """The field values of a nested model read from a `Row`: a JSON object or a model."""
    return value if type(value) is dict else value.__dict__
