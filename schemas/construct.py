"""Building event models from trusted, complete values without validation.

`model_construct` re-walks every field in Python (about 5 us per model here); the stages
build hundreds of small models per answer from already-validated values, so this module
sets the instance state directly, exactly as `model_construct` leaves it when every field
is given. A test keeps the two equal.

Hot-path notes: the four instance slots are set through their slot descriptors (cheaper than
`object.__setattr__`, which looks the name up first), and every instance of a class shares one
fields-set. Sharing is safe: every field is set, so pydantic's own updates of the set
(`__setattr__` adding a field name) change nothing, and `model_copy` copies it.

The native build compiles this module with the stage logic (`services.native`), so the stages'
`make(values)` calls are compiled calls; `schemas/__init__.py` activates that build, so the
compiled module is used whichever package a process imports first. The slot setters are
`Final`, which mypyc keeps in C statics rather than looking them up in the module dict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_SLOTS: Final = BaseModel.__dict__
_new: Final = object.__new__
_set_dict: Final = _SLOTS["__dict__"].__set__
_set_fields: Final = _SLOTS["__pydantic_fields_set__"].__set__
_set_extra: Final = _SLOTS["__pydantic_extra__"].__set__
_set_private: Final = _SLOTS["__pydantic_private__"].__set__
_FIELDS_SET: Final[dict[type[BaseModel], set[str]]] = {}


def fields_set(cls: type[BaseModel]) -> set[str]:
    """The fields-set shared by every instance of `cls` built here (all its fields)."""
    found = _FIELDS_SET.get(cls)
    if found is None:
        found = _FIELDS_SET[cls] = set(cls.model_fields)
    return found


def construct(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of `cls` holding `values`, which must name every field of `cls`."""
    model = _new(cls)
    _set_dict(model, values)
    _set_fields(model, _FIELDS_SET.get(cls) or fields_set(cls))
    _set_extra(model, None)
    _set_private(model, None)
    return model


def maker(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    """`make(values)`: `construct(cls, values)` without the per-call class lookups."""
    shared = fields_set(cls)

    def make(values: dict[str, Any]) -> M:
        model = _new(cls)
        _set_dict(model, values)
        _set_fields(model, shared)
        _set_extra(model, None)
        _set_private(model, None)
        return model

    return make
