"""`python -m services.runtime STAGE [options]`: the same as `citeflow run`."""

import sys

from services.cli import main

main(["run", *sys.argv[1:]], prog_name="citeflow")
