"""Building event models from trusted, complete values without validation.

`model_construct` re-walks every field in Python (about 5 us per model here); an answer's
extraction has hundreds of small models, so this module sets the instance state directly,
exactly as `model_construct` leaves it when every field is given. A test keeps the two equal.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
_set = object.__setattr__


def construct(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of `cls` holding `values`, which must name every field of `cls`."""
    model = cls.__new__(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model
