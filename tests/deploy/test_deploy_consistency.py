"""docker-compose, the Kubernetes manifests and the topic definitions agree with the
stage registry (no Docker engine runs here, so this is how compose is kept honest)."""

from __future__ import annotations

from pathlib import Path

import yaml

from schemas.topics import ALL_TOPICS, dlq_topic
from services.stages import STAGE_NAMES, all_stages

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_every_stage_as_its_own_service() -> None:
    services = _compose()["services"]
    for name in STAGE_NAMES:
        assert name in services, f"stage {name} has no compose service"
        assert services[name]["command"] == ["run", name]
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"
        assert services[name]["environment"]["KAFKA_BOOTSTRAP_SERVERS"] == "kafka:9092"
    stage_services = {n for n, s in services.items() if s.get("command", [None])[0] == "run"}
    assert stage_services == set(STAGE_NAMES)


def test_compose_has_kraft_kafka_and_a_topic_job() -> None:
    services = _compose()["services"]
    env = services["kafka"]["environment"]
    assert "controller" in env["KAFKA_PROCESS_ROLES"] and "broker" in env["KAFKA_PROCESS_ROLES"]
    assert services["topics"]["command"] == ["topics", "create"]
    assert services["topics"]["restart"] == "no"


def test_kubernetes_has_a_deployment_per_stage() -> None:
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "k8s" / "citeflow.yaml").read_text()))
    deployments = {d["metadata"]["labels"]["stage"]: d for d in docs if d["kind"] == "Deployment"}
    assert set(deployments) == set(STAGE_NAMES)
    for name, deployment in deployments.items():
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        assert container["args"] == ["run", name]


def test_topic_definitions_cover_every_topic_and_dead_letter_topic() -> None:
    defined = {t["name"] for t in yaml.safe_load((ROOT / "deploy" / "topics.yaml").read_text())["topics"]}
    expected = set(ALL_TOPICS)
    for stage in all_stages().values():
        expected.update(stage.input_topics)
        expected.update(stage.output_topics)
        expected.update(dlq_topic(t) for t in stage.input_topics)
    assert defined == expected
