"""How the spans stage builds its output models: by trusted construction.

The stage makes some 250 small models per answer (units, spans, locators, selectors, links).
Validating them would cost more than all of span resolution, and every value is built here
from already-validated input, so they are made with `services.citations.build.construct`
(the instance state `model_construct` leaves, without re-walking fields). Every call names
every field of its model; a test checks that the output survives a validating round trip
unchanged.
"""

from __future__ import annotations

from services.citations.build import construct

__all__ = ["construct"]
