"""citeflow services: the five stages, their shared runtime, the broker launcher and the CLI."""

from services.native import activate

# The compiled stage logic, when `make install` built it and it matches the source.
activate()
