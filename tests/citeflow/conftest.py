"""The integration fixtures (harness, stages) for the client's tests."""

from tests.integration.conftest import harness, pipeline_specs  # noqa: F401
