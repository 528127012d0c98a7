"""Kafka connection settings: the exact aiokafka arguments each security set-up produces
(SASL mechanisms no broker here serves are checked at this level), secrets from files,
secrets never shown, and a clear error naming the variable for settings that cannot work."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest
from aiokafka.abc import AbstractTokenProvider

from services.runtime.config import RuntimeConfig, to_env
from services.runtime.connection import FileTokenProvider, KafkaConnection
from services.bench.tls import make_pki


class StaticTokens(AbstractTokenProvider):
    async def token(self) -> str:
        return "a-token"


PROVIDER = StaticTokens()


def test_default_is_plaintext_with_nothing_else() -> None:
    assert KafkaConnection.from_env({}).client_kwargs() == {"security_protocol": "PLAINTEXT"}


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_sasl_over_plaintext_gives_aiokafka_the_credentials(mechanism: str) -> None:
    env = {"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": mechanism,
           "KAFKA_SASL_USERNAME": "svc", "KAFKA_SASL_PASSWORD": "pw"}
    assert KafkaConnection.from_env(env).client_kwargs() == {
        "security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": mechanism,
        "sasl_plain_username": "svc", "sasl_plain_password": "pw"}


def test_sasl_ssl_scram_with_a_ca_file(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    env = {"KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "scram-sha-512",
           "KAFKA_SASL_USERNAME": "svc", "KAFKA_SASL_PASSWORD": "pw",
           "KAFKA_SSL_CA_LOCATION": str(pki.ca)}
    kwargs = KafkaConnection.from_env(env).client_kwargs()
    context = kwargs.pop("ssl_context")
    assert kwargs == {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512",
                      "sasl_plain_username": "svc", "sasl_plain_password": "pw"}
    assert isinstance(context, ssl.SSLContext) and context.check_hostname
    assert context.verify_mode == ssl.CERT_REQUIRED


def test_mutual_tls_loads_the_client_certificate_and_can_skip_the_hostname(
        tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    env = {"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_SSL_CA_LOCATION": str(pki.ca),
           "KAFKA_SSL_CERTIFICATE_LOCATION": str(pki.client_cert),
           "KAFKA_SSL_KEY_LOCATION": str(pki.client_key),
           "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM": "none"}
    kwargs = KafkaConnection.from_env(env).client_kwargs()
    assert set(kwargs) == {"security_protocol", "ssl_context"}
    assert kwargs["ssl_context"].check_hostname is False
    assert kwargs["ssl_context"].verify_mode == ssl.CERT_REQUIRED


def test_oauthbearer_uses_the_token_provider_hook() -> None:
    env = {"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
           "KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER": f"{__name__}:PROVIDER"}
    kwargs = KafkaConnection.from_env(env).client_kwargs()
    assert kwargs["sasl_mechanism"] == "OAUTHBEARER"
    assert kwargs["sasl_oauth_token_provider"] is PROVIDER
    assert "sasl_plain_password" not in kwargs
    by_class = {**env, "KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER": f"{__name__}:StaticTokens"}
    assert isinstance(KafkaConnection.from_env(by_class).token_provider, StaticTokens)


async def test_oauthbearer_token_file_is_read_at_each_authentication(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("first\n")
    env = {"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
           "KAFKA_SASL_OAUTHBEARER_TOKEN_FILE": str(token)}
    provider = KafkaConnection.from_env(env).client_kwargs()["sasl_oauth_token_provider"]
    assert isinstance(provider, FileTokenProvider)
    assert await provider.token() == "first"
    token.write_text("second")
    assert await provider.token() == "second"


def test_secrets_come_from_files_and_children_get_the_file_not_the_secret(
        tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text("s3cret\n")
    env = {"KAFKA_BOOTSTRAP_SERVERS": "k:9093", "KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
           "KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "svc",
           "KAFKA_SASL_PASSWORD_FILE": str(secret)}
    config = RuntimeConfig.from_env(env)
    assert config.kafka.client_kwargs()["sasl_plain_password"] == "s3cret"
    child = to_env(config)
    assert child["KAFKA_SASL_PASSWORD_FILE"] == str(secret)
    assert "s3cret" not in str(child) and "KAFKA_SASL_PASSWORD" not in child
    assert RuntimeConfig.from_env(child).kafka == config.kafka


def test_secrets_are_never_shown(tmp_path: Path) -> None:
    pki = make_pki(tmp_path, key_password="keypw")
    env = {"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-256",
           "KAFKA_SASL_USERNAME": "svc", "KAFKA_SASL_PASSWORD": "hunter2",
           "KAFKA_SSL_CA_LOCATION": str(pki.ca),
           "KAFKA_SSL_CERTIFICATE_LOCATION": str(pki.client_cert),
           "KAFKA_SSL_KEY_LOCATION": str(pki.client_key), "KAFKA_SSL_KEY_PASSWORD": "keypw"}
    config = RuntimeConfig.from_env(env)
    assert config.kafka.ssl_context is not None  # the encrypted key loads with its password
    for shown in (repr(config), str(config), config.kafka.describe()):
        assert "hunter2" not in shown and "keypw" not in shown
    assert config.kafka.describe() == (
        f"SASL_SSL, CA {pki.ca}, client certificate {pki.client_cert}, SCRAM-SHA-256 as svc")


@pytest.mark.parametrize(("env", "variable"), [
    ({"KAFKA_SECURITY_PROTOCOL": "TLS"}, "KAFKA_SECURITY_PROTOCOL"),
    ({"KAFKA_SECURITY_PROTOCOL": "SASL_SSL"}, "KAFKA_SASL_MECHANISM"),
    ({"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "GSSAPI"},
     "KAFKA_SASL_MECHANISM"),
    ({"KAFKA_SASL_MECHANISM": "PLAIN"}, "KAFKA_SASL_MECHANISM"),
    ({"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-256",
      "KAFKA_SASL_USERNAME": "svc"}, "KAFKA_SASL_MECHANISM=SCRAM-SHA-256 needs "
                                     "KAFKA_SASL_PASSWORD"),
    ({"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "OAUTHBEARER"},
     "KAFKA_SASL_MECHANISM=OAUTHBEARER"),
    ({"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
      "KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER": "no_such_module:x"},
     "KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER"),
    ({"KAFKA_SSL_CA_LOCATION": "/etc/hostname"}, "KAFKA_SSL_CA_LOCATION"),
    ({"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_SSL_CA_LOCATION": "/no/such/ca.pem"},
     "KAFKA_SSL_CA_LOCATION"),
    ({"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM": "x"},
     "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM"),
    ({"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "PLAIN",
      "KAFKA_SASL_USERNAME": "svc", "KAFKA_SASL_PASSWORD": "a",
      "KAFKA_SASL_PASSWORD_FILE": "/etc/hostname"}, "KAFKA_SASL_PASSWORD and"),
    ({"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "PLAIN",
      "KAFKA_SASL_USERNAME": "svc", "KAFKA_SASL_PASSWORD_FILE": "/no/such/file"},
     "KAFKA_SASL_PASSWORD_FILE"),
    ({"KAFKA_ENABLE_IDEMPOTENCE": "maybe"}, "KAFKA_ENABLE_IDEMPOTENCE"),
])
def test_unusable_settings_name_their_variable(env: dict[str, str], variable: str) -> None:
    with pytest.raises(ValueError) as raised:
        RuntimeConfig.from_env(env).kafka.client_kwargs()
    assert str(raised.value).startswith(variable), str(raised.value)


def test_a_wrong_key_password_names_the_variables(tmp_path: Path) -> None:
    pki = make_pki(tmp_path, key_password="right")
    connection = KafkaConnection.from_env({
        "KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_SSL_CERTIFICATE_LOCATION": str(pki.client_cert),
        "KAFKA_SSL_KEY_LOCATION": str(pki.client_key), "KAFKA_SSL_KEY_PASSWORD": "wrong"})
    with pytest.raises(ValueError, match="^KAFKA_SSL_CERTIFICATE_LOCATION.*KAFKA_SSL_KEY_PASSWORD"):
        connection.client_kwargs()
