"""`python -m services.cli ...`: the citeflow CLI (how `citeflow up` starts the gateway)."""

from services.cli import main

main()
