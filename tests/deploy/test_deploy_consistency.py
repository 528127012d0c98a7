"""docker-compose, the Kubernetes manifests and the topic definitions agree with the
stage registry (no Docker engine runs here, so this is how compose is kept honest)."""

from __future__ import annotations

from pathlib import Path

import yaml

from schemas.topics import ALL_TOPICS, dlq_topic
from services.broker import planned_topics
from services.cli.options import pipeline_topic_names
from services.runtime.config import RuntimeConfig
from services.runtime.topic_specs import MAX_MESSAGE_BYTES
from services.stages import SINK_NAMES, STAGE_NAMES, all_stages, stage

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_every_stage_as_its_own_service() -> None:
    services = _compose()["services"]
    for name in STAGE_NAMES + SINK_NAMES:
        assert name in services, f"stage {name} has no compose service"
        assert services[name]["command"] == ["run", name]
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"
        assert services[name]["environment"]["KAFKA_BOOTSTRAP_SERVERS"] == "kafka:9092"
    stage_services = {n for n, s in services.items() if s.get("command", [None])[0] == "run"}
    assert stage_services == set(STAGE_NAMES + SINK_NAMES)


def test_compose_runs_the_gateway_and_the_store_on_postgres() -> None:
    services = _compose()["services"]
    gateway, store = services["gateway"], services["store"]
    assert gateway["command"][0] == "serve" and "127.0.0.1:8000:8080" in gateway["ports"]
    for service in (gateway, store, services["migrate"]):
        assert service["environment"]["CITEFLOW_STORE_URL"].startswith("postgresql+asyncpg://")
    assert services["migrate"]["command"] == ["store", "migrate"]
    assert "postgres" in services and "pg_isready" in services["postgres"]["healthcheck"]["test"][1]
    # The gateway writes uploaded documents where ingest reads them.
    assert services["gateway"]["volumes"] == ["documents:/data/documents"]
    assert services["ingest"]["volumes"] == ["documents:/data/documents:ro"]


def test_compose_has_kraft_kafka_and_a_topic_job() -> None:
    services = _compose()["services"]
    env = services["kafka"]["environment"]
    assert "controller" in env["KAFKA_PROCESS_ROLES"] and "broker" in env["KAFKA_PROCESS_ROLES"]
    assert services["topics"]["command"] == ["topics", "create"]
    assert services["topics"]["restart"] == "no"


def test_kubernetes_has_a_deployment_per_stage() -> None:
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "k8s" / "citeflow.yaml").read_text()))
    deployments = {d["metadata"]["labels"]["stage"]: d for d in docs
                   if d["kind"] == "Deployment" and "stage" in d["metadata"]["labels"]}
    assert set(deployments) == set(STAGE_NAMES + SINK_NAMES)
    for name, deployment in deployments.items():
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        assert container["args"] == ["run", name]


def test_kubernetes_has_the_gateway_behind_a_service_and_a_migration_job() -> None:
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "k8s" / "citeflow.yaml").read_text()))
    by_name = {d["metadata"]["name"]: d for d in docs}
    gateway = by_name["citeflow-gateway"]
    kinds = {d["kind"] for d in docs if d["metadata"]["name"] == "citeflow-gateway"}
    assert kinds == {"Deployment", "Service"}
    deployment = next(d for d in docs if d["metadata"]["name"] == "citeflow-gateway"
                      and d["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][0] == "serve"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert gateway["metadata"]["labels"]["component"] == "gateway"
    assert by_name["citeflow-migrate"]["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "store", "migrate"]


def test_the_gateway_is_reached_through_a_proxy_it_trusts_and_nothing_else() -> None:
    """No deployment trusted its proxy: every client had the proxy's address, and one
    client's refusals shut out all of them. The gateway listens on the loopback its proxy
    shares, trusts that address alone, and the proxy overwrites X-Forwarded-For."""
    shipped = (ROOT / "deploy" / "proxy" / "citeflow.conf").read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in shipped
    assert "$proxy_add_x_forwarded_for" not in shipped
    services = _compose()["services"]
    gateway, proxy = services["gateway"], services["proxy"]
    assert gateway["command"][gateway["command"].index("--host") + 1] == "127.0.0.1"
    assert gateway["environment"]["FORWARDED_ALLOW_IPS"] == "127.0.0.1"
    assert proxy["network_mode"] == "service:gateway"
    assert "./deploy/proxy/citeflow.conf:/etc/nginx/conf.d/default.conf:ro" in proxy["volumes"]
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "k8s" / "citeflow.yaml").read_text()))
    by_kind = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    assert by_kind[("ConfigMap", "citeflow-proxy")]["data"]["citeflow.conf"] == shipped
    pod = by_kind[("Deployment", "citeflow-gateway")]["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in pod["containers"]}
    assert containers["gateway"]["args"][containers["gateway"]["args"].index("--host") + 1] == (
        "127.0.0.1")
    env = {e["name"]: e.get("value") for e in containers["gateway"]["env"]}
    assert env["FORWARDED_ALLOW_IPS"] == "127.0.0.1"
    assert containers["proxy"]["ports"][0]["containerPort"] == 8080
    service = by_kind[("Service", "citeflow-gateway")]
    assert service["spec"]["ports"][0]["targetPort"] == "http"


def test_topic_definitions_cover_every_topic_and_dead_letter_topic() -> None:
    config = RuntimeConfig()
    defined = {spec.name for spec in planned_topics(config, pipeline_topic_names(config))}
    expected = set(ALL_TOPICS)
    for consumer in [*all_stages().values(), *(stage(name) for name in SINK_NAMES)]:
        expected.update(consumer.input_topics)
        expected.update(consumer.output_topics)
        expected.update(dlq_topic(t) for t in consumer.input_topics)
    assert defined == expected


def test_compose_kafka_accepts_the_messages_the_topics_do() -> None:
    kafka = _compose()["services"]["kafka"]["environment"]
    assert int(kafka["KAFKA_MESSAGE_MAX_BYTES"]) == MAX_MESSAGE_BYTES
