"""Building event models from trusted, complete values without validation.

`model_construct` re-walks every field in Python (about 5 us per model here); the stages
build hundreds of small models per answer from already-validated values, so this module
sets the instance state directly, exactly as `model_construct` leaves it when every field
is given. A test keeps the two equal.

Hot-path notes: interpreted, the four instance slots are set through their slot descriptors
(cheaper than `object.__setattr__`, which looks the name up first and builds an argument
tuple); compiled, `object.__setattr__(model, name, value)` is the cheaper one, as mypyc makes
it a direct C call of the generic attribute setter (about 1,200 instructions less per model,
0.95 M per benchmark answer). Every instance of a class shares one fields-set. Sharing is safe:
every field is set, so pydantic's own updates of the set (`__setattr__` adding a field name)
change nothing, and `model_copy` copies it.

The native build compiles this module with the stage logic (`services.native`), so the stages'
`make(values)` calls are compiled calls; `schemas/__init__.py` activates that build, so the
compiled module is used whichever package a process imports first. The slot setters are
`Final`, which mypyc keeps in C statics rather than looking them up in the module dict.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
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


# Whether this module runs compiled: its functions are Python functions only when interpreted.
_COMPILED: Final = not isinstance(fields_set, FunctionType)


def construct(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of `cls` holding `values`, which must name every field of `cls`."""
    return maker(cls)(values)


def maker(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    """`make(values)`: `construct(cls, values)` without the per-call class lookups."""
    shared = fields_set(cls)

    def make(values: dict[str, Any]) -> M:
        model = _new(cls)
        if _COMPILED:  # (see the module docstring)
            object.__setattr__(model, "__dict__", values)
            object.__setattr__(model, "__pydantic_fields_set__", shared)
            object.__setattr__(model, "__pydantic_extra__", None)
            object.__setattr__(model, "__pydantic_private__", None)
        else:
            _set_dict(model, values)
            _set_fields(model, shared)
            _set_extra(model, None)
            _set_private(model, None)
        return model

    return make
