"""The npm package folder (clients/js): its types and its copy of the component are what
the generator makes of schemas/json/ and the served component (no drift), and the types
name every property of answer.formatted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "js"


def test_generated_files_are_current() -> None:
    done = subprocess.run([sys.executable, str(PACKAGE / "generate.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_check_fails_on_drift(tmp_path: Path) -> None:
    target = PACKAGE / "types" / "answer.formatted.v1.d.ts"
    saved = target.read_text()
    try:
        target.write_text(saved.replace("citations: Array<FormattedCitation>;", ""))
        done = subprocess.run([sys.executable, str(PACKAGE / "generate.py"), "--check"],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 1 and "answer.formatted.v1.d.ts" in done.stderr
    finally:
        target.write_text(saved)


def test_types_cover_the_formatted_contract() -> None:
    schema = json.loads((ROOT / "schemas" / "json" / "answer.formatted.v1.json").read_text())
    types = (PACKAGE / "types" / "answer.formatted.v1.d.ts").read_text()
    assert "export interface AnswerFormatted {" in types
    for name in schema["properties"]:
        assert f"\n  {name}: " in types, name
    for definition in schema["$defs"]:
        assert f"export interface {definition} " in types or \
            f"export type {definition} " in types, definition
    package = json.loads((PACKAGE / "package.json").read_text())
    # `main` is the served component, copied in when packing (prepack runs generate.py).
    assert package["types"] == "index.d.ts" and package["main"] == "citeflow.js"
    assert package["scripts"]["prepack"] == "python3 generate.py"
