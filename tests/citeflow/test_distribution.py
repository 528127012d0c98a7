"""The client as its own distribution (clients/python/, `citeflow-client`): its typed models
are the JSON Schemas' (a drift test), it is versioned with the server, it holds only the
`citeflow` package and the server's holds none of it; installed alone into a fresh venv
(from the local path, dependencies from the package registry) it brings no server package
and its README's quickstart runs against a real gateway."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.integration.conftest import REPO_ROOT, WAIT_S, Harness
from tests.integration.test_gateway_pipeline import Gateway, pipeline  # noqa: F401

CLIENT = REPO_ROOT / "clients" / "python"


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("client_generate", CLIENT / "generate.py")
    assert spec and spec.loader
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    return generate


def test_the_models_are_current_with_the_schemas() -> None:
    assert _generator().main(["--check"]) == 0


def test_a_schema_change_is_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate = _generator()
    schemas = tmp_path / "json"
    shutil.copytree(generate.SCHEMAS, schemas)
    path = schemas / "answer.formatted.v1.json"
    schema = json.loads(path.read_text())
    schema["$defs"]["Support"]["properties"]["atoms"] = {"type": "array", "items": {}}
    path.write_text(json.dumps(schema))
    monkeypatch.setattr(generate, "SCHEMAS", schemas)
    assert generate.main(["--check"]) == 1


def test_versioned_with_the_server_and_apart_from_it() -> None:
    server = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    client = tomllib.loads((CLIENT / "pyproject.toml").read_text())
    assert client["project"]["version"] == server["project"]["version"]
    assert client["project"]["dependencies"] == ["httpx>=0.27", "pydantic>=2.6"]
    assert client["tool"]["setuptools"]["packages"]["find"]["include"] == ["citeflow*"]
    assert not any(name.startswith("citeflow")
                   for name in server["tool"]["setuptools"]["packages"]["find"]["include"])
    assert not (REPO_ROOT / "citeflow").exists()


def _quickstart() -> str:
    text = (CLIENT / "README.md").read_text()
    section = text.split("<!-- client-quickstart:begin -->", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)  # type: ignore[union-attr]


@pytest.mark.integration
@pytest.mark.timeout(1800)  # pip fetches httpx and pydantic from the registry
@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)  # the store is not its point
def test_installed_alone_its_quickstart_runs(harness: Harness, pipeline: str,  # noqa: F811
                                             tmp_path: Path) -> None:
    from tests.citeflow.test_client_gateway import _key

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # the local path only: no copy of this repository on sys.path, no PYTHONPATH
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         str(CLIENT)], env=env, capture_output=True, text=True, timeout=600, check=False)
    assert installed.returncode == 0, installed.stderr[-3000:]
    listed = subprocess.run([python, "-m", "pip", "list", "--format=json"], env=env,
                            capture_output=True, text=True, check=True)
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "citeflow-client" in names and "citeflow" not in names
    assert not names & {"aiokafka", "sqlalchemy", "asyncpg", "uvicorn", "pymupdf-lite", "lxml",
                        "numpy", "starlette", "orjson"}, names
    probe = ("import importlib.util as u; print([m for m in ('services', 'schemas') "
             "if u.find_spec(m)])")
    found = subprocess.run([python, "-c", probe], env=env, cwd=tmp_path, capture_output=True,
                           text=True, check=True)
    assert found.stdout.strip() == "[]"

    # The gateway once the client is installed: it does not wait on the install.
    gateway = Gateway(harness, pipeline)
    gateway.start()
    key = asyncio.run(_key(pipeline))
    ran = subprocess.run([python, "-c", _quickstart()], cwd=tmp_path,
                         env={**env, "CITEFLOW_URL": gateway.url, "CITEFLOW_API_KEY": key},
                         capture_output=True, text=True, timeout=WAIT_S, check=False)
    assert ran.returncode == 0, ran.stderr[-3000:]
    lines = ran.stdout.strip().splitlines()
    assert lines[0] == "[1] supported", lines
    assert re.fullmatch(rf"{re.escape(gateway.url)}/answers/cf-\w+#key=.+", lines[1]), lines
