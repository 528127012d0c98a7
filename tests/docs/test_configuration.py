"""docs/configuration.md lists every environment variable the code reads, with the code's
defaults, and nothing else."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from services.gateway.settings import DEFAULT_HOST, DEFAULT_PORT, GatewaySettings
from services.ingest.answers import DEFAULT_MAX_BYTES
from services.ingest.documents.store import DEFAULT_ROOT
from services.runtime import connection
from services.runtime.config import ENV_VARS, RuntimeConfig
from services.store.engine import DEFAULT_DATA_DIR

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "configuration.md"
_VARIABLE = re.compile(r"\b(CITEFLOW_[A-Z0-9_]*[A-Z0-9]|KAFKA_[A-Z0-9_]*[A-Z0-9])\b")


def documented() -> dict[str, str]:
    """Variable to its default cell, from the table's rows."""
    table: dict[str, str] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `([A-Z0-9_]+)` \| ([^|]*) \|", line)
        if match:
            table[match.group(1)] = match.group(2).strip()
    return table


def read_by_code() -> set[str]:
    names: set[str] = set()
    for base in ("services", "schemas"):
        for path in (ROOT / base).rglob("*.py"):
            names |= set(_VARIABLE.findall(path.read_text(encoding="utf-8")))
    return names


def _cell(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


def test_every_variable_the_code_reads_is_documented_and_nothing_else() -> None:
    table, code = set(documented()), read_by_code()
    assert code - table == set(), f"not in docs/configuration.md: {sorted(code - table)}"
    assert table - code == set(), f"documented but never read: {sorted(table - code)}"


def test_runtime_defaults_are_the_code_s() -> None:
    table = documented()
    defaults = RuntimeConfig()
    settings = [(ENV_VARS[f.name], getattr(defaults, f.name))
                for f in fields(RuntimeConfig) if f.name in ENV_VARS]
    settings += [(connection.ENV_VARS[f.name], getattr(defaults.kafka, f.name))
                 for f in fields(connection.KafkaConnection) if f.name in connection.ENV_VARS]
    for variable, value in settings:
        if value in (None, ""):
            assert not table[variable].startswith("`") or variable == "CITEFLOW_GROUP_ID", variable
        else:
            assert table[variable] == _cell(value), variable


def test_other_defaults_are_the_code_s() -> None:
    table = documented()
    gateway = GatewaySettings()
    expected = {
        "CITEFLOW_HTTP_HOST": DEFAULT_HOST, "CITEFLOW_HTTP_PORT": DEFAULT_PORT,
        "CITEFLOW_RATE_LIMIT": gateway.rate_per_s,
        "CITEFLOW_KEY_CACHE_SECONDS": gateway.key_cache_seconds,
        "CITEFLOW_MAX_WAIT_SECONDS": gateway.max_wait_s,
        "CITEFLOW_UNAUTHENTICATED_RATE": gateway.unauthenticated_rate_per_s,
        "CITEFLOW_MAX_ANSWER_BYTES": DEFAULT_MAX_BYTES,
        "CITEFLOW_DATA_DIR": DEFAULT_DATA_DIR,
    }
    for variable, value in expected.items():
        assert table[variable] == _cell(value), variable
    assert Path(table["CITEFLOW_DOCUMENT_STORE"].strip("`")) == Path(DEFAULT_ROOT)
