"""The integration fixtures (broker, harness, stages) for the client's tests."""

from tests.integration.conftest import bootstrap, harness, pipeline_specs  # noqa: F401
