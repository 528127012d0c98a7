"""One partition count everywhere: deploy/topics.yaml's default is the code's."""

from __future__ import annotations

from pathlib import Path

import yaml

from services.runtime.config import RuntimeConfig

ROOT = Path(__file__).resolve().parents[2]


def test_topics_yaml_default_partitions_is_the_code_s() -> None:
    topics = yaml.safe_load((ROOT / "deploy" / "topics.yaml").read_text())
    assert topics["defaults"]["partitions"] == RuntimeConfig().partitions
