"""Versioned event models, the CloudEvents envelope, upcasters and exported JSON Schemas."""

from services.native import activate

# `schemas.construct` is part of the native build (services/native): activate it here too, so
# a process that imports `schemas` before `services` still gets the compiled module.
activate()
