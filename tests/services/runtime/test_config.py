"""Configuration: defaults, environment variables, flag overrides."""

from __future__ import annotations

import pytest

from services.runtime.config import RuntimeConfig, to_env


def test_defaults_keep_the_fetch_wait_low() -> None:
    config = RuntimeConfig.from_env({})
    assert config.fetch_max_wait_ms <= 50
    assert config.bootstrap_servers == ""
    assert config.metrics_port is None


def test_environment_then_overrides() -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": "k:9092", "CITEFLOW_BATCH_SIZE": "7",
           "CITEFLOW_SHUTDOWN_TIMEOUT_S": "2.5", "CITEFLOW_TOPIC_PREFIX": "t."}
    config = RuntimeConfig.from_env(env, batch_size=None, metrics_port=9100)
    assert (config.bootstrap_servers, config.batch_size, config.shutdown_timeout_s) == (
        "k:9092", 7, 2.5)
    assert config.metrics_port == 9100
    assert RuntimeConfig.from_env(env, batch_size=3).batch_size == 3


def test_bad_number_names_the_variable() -> None:
    with pytest.raises(ValueError, match="CITEFLOW_BATCH_SIZE"):
        RuntimeConfig.from_env({"CITEFLOW_BATCH_SIZE": "many"})


def test_prefix_maps_topics_both_ways_and_names_groups() -> None:
    config = RuntimeConfig.from_env({"CITEFLOW_TOPIC_PREFIX": "t1."})
    assert config.physical("answers.scored") == "t1.answers.scored"
    assert config.logical("t1.answers.scored") == "answers.scored"
    assert config.group_for("spans") == "t1.citeflow-spans"
    assert RuntimeConfig.from_env({"CITEFLOW_GROUP_ID": "g"}).group_for("spans") == "g"


def test_to_env_round_trips_without_the_group() -> None:
    config = RuntimeConfig.from_env({}, bootstrap_servers="b:1", group_id="g", batch_size=9,
                                    metrics_port=None)
    env = to_env(config)
    assert "CITEFLOW_GROUP_ID" not in env and "CITEFLOW_METRICS_PORT" not in env
    assert RuntimeConfig.from_env(env) == RuntimeConfig.from_env({}, bootstrap_servers="b:1",
                                                                 batch_size=9)


def test_a_static_member_names_itself_and_its_children_do_not_inherit_the_name() -> None:
    config = RuntimeConfig.from_env({"CITEFLOW_GROUP_INSTANCE_ID": "citeflow-scoring-0"})
    assert config.group_instance_id == "citeflow-scoring-0"
    assert "CITEFLOW_GROUP_INSTANCE_ID" not in to_env(config)  # one name, one process
    assert RuntimeConfig.from_env({}).group_instance_id == ""
