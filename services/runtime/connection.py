"""How every Kafka client connects: security protocol, TLS files, SASL credentials.

One settings object, read from environment variables named after the Kafka client settings
(`security.protocol` is `KAFKA_SECURITY_PROTOCOL`, ...); a secret may instead be given as a
file (`KAFKA_SASL_PASSWORD_FILE`). `client_kwargs()` is what every aiokafka producer,
consumer and admin client of citeflow is built with. Secrets never appear in `repr` or in
`describe()`.
"""

from __future__ import annotations

import importlib
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from aiokafka.abc import AbstractTokenProvider

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")

# Environment variable of each field.
ENV_VARS: dict[str, str] = {
    "security_protocol": "KAFKA_SECURITY_PROTOCOL",
    "ssl_ca_location": "KAFKA_SSL_CA_LOCATION",
    "ssl_certificate_location": "KAFKA_SSL_CERTIFICATE_LOCATION",
    "ssl_key_location": "KAFKA_SSL_KEY_LOCATION",
    "ssl_key_password": "KAFKA_SSL_KEY_PASSWORD",
    "ssl_endpoint_identification_algorithm": "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM",
    "sasl_mechanism": "KAFKA_SASL_MECHANISM",
    "sasl_username": "KAFKA_SASL_USERNAME",
    "sasl_password": "KAFKA_SASL_PASSWORD",
    "sasl_oauthbearer_token_provider": "KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER",
    "sasl_oauthbearer_token_file": "KAFKA_SASL_OAUTHBEARER_TOKEN_FILE",
}
# Settings that may come from a file instead: the variable naming the file.
FILE_VARS: dict[str, str] = {
    "ssl_key_password": "KAFKA_SSL_KEY_PASSWORD_FILE",
    "sasl_username": "KAFKA_SASL_USERNAME_FILE",
    "sasl_password": "KAFKA_SASL_PASSWORD_FILE",
}


@dataclass(frozen=True)
class KafkaConnection:
    """Connection and authentication settings shared by every Kafka client."""

    security_protocol: str = "PLAINTEXT"
    # PEM files: the CA that signed the brokers' certificates (unset: the system's), and
    # this client's certificate and key (mutual TLS).
    ssl_ca_location: str = ""
    ssl_certificate_location: str = ""
    ssl_key_location: str = ""
    ssl_key_password: str = field(default="", repr=False)
    # `https`: the broker's certificate must name the host connected to; `none`: not checked.
    ssl_endpoint_identification_algorithm: str = "https"
    sasl_mechanism: str = ""
    sasl_username: str = ""
    sasl_password: str = field(default="", repr=False)
    # `module:attr`: an aiokafka AbstractTokenProvider, or a callable returning one.
    sasl_oauthbearer_token_provider: str = ""
    # A file holding the current token, read at every (re)authentication.
    sasl_oauthbearer_token_file: str = ""
    # Secrets read from files: (field, path), so a child process gets the path, not the value.
    secret_files: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> KafkaConnection:
        """The settings in `environ` (default: os.environ), checked; ValueError names the
        variable that is wrong."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        files: list[tuple[str, str]] = []
        for name, variable in ENV_VARS.items():
            raw = env.get(variable, "")
            file_variable = FILE_VARS.get(name, "")
            path = env.get(file_variable, "") if file_variable else ""
            if raw and path:
                raise ValueError(f"{variable} and {file_variable} are both set: use one")
            if path:
                raw = _read_secret(file_variable, path)
                files.append((name, path))
            if raw:
                values[name] = raw
        connection = cls(**values, secret_files=tuple(files))
        connection.check()
        return connection

    def check(self) -> None:
        """Raise ValueError (naming the variable) for settings that cannot work together."""
        protocol = self.security_protocol.upper()
        if protocol not in PROTOCOLS:
            raise ValueError(f"KAFKA_SECURITY_PROTOCOL={self.security_protocol!r} is not one "
                             f"of {', '.join(PROTOCOLS)}")
        uses_tls, uses_sasl = protocol.endswith("SSL"), protocol.startswith("SASL")
        for name in ("ssl_ca_location", "ssl_certificate_location", "ssl_key_location"):
            value = getattr(self, name)
            if value and not uses_tls:
                raise ValueError(f"{ENV_VARS[name]} is set but KAFKA_SECURITY_PROTOCOL="
                                 f"{protocol} does not use TLS (SSL or SASL_SSL)")
            if value and not Path(value).is_file():
                raise ValueError(f"{ENV_VARS[name]}={value!r}: no such file")
        if self.ssl_key_location and not self.ssl_certificate_location:
            raise ValueError("KAFKA_SSL_KEY_LOCATION is set without "
                             "KAFKA_SSL_CERTIFICATE_LOCATION (mutual TLS needs both)")
        if self.ssl_endpoint_identification_algorithm.lower() not in ("https", "none"):
            raise ValueError("KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM="
                             f"{self.ssl_endpoint_identification_algorithm!r} is not https "
                             "or none")
        self._check_sasl(protocol, uses_sasl)

    def _check_sasl(self, protocol: str, uses_sasl: bool) -> None:
        mechanism = self.sasl_mechanism.upper()
        if not uses_sasl:
            if mechanism:
                raise ValueError(f"KAFKA_SASL_MECHANISM is set but KAFKA_SECURITY_PROTOCOL="
                                 f"{protocol} does not use SASL (SASL_PLAINTEXT or SASL_SSL)")
            return
        if mechanism not in MECHANISMS:
            raise ValueError(f"KAFKA_SASL_MECHANISM={self.sasl_mechanism!r} is not one of "
                             f"{', '.join(MECHANISMS)} (KAFKA_SECURITY_PROTOCOL={protocol} "
                             "needs one)")
        if mechanism == "OAUTHBEARER":
            given = [v for v in ("sasl_oauthbearer_token_provider",
                                 "sasl_oauthbearer_token_file") if getattr(self, v)]
            if len(given) != 1:
                raise ValueError("KAFKA_SASL_MECHANISM=OAUTHBEARER needs exactly one of "
                                 "KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER and "
                                 "KAFKA_SASL_OAUTHBEARER_TOKEN_FILE")
            return
        for name in ("sasl_username", "sasl_password"):
            if not getattr(self, name):
                raise ValueError(f"KAFKA_SASL_MECHANISM={mechanism} needs {ENV_VARS[name]} "
                                 f"(or {FILE_VARS[name]})")

    @property
    def protocol(self) -> str:
        """The security protocol, upper case."""
        return self.security_protocol.upper()

    @property
    def uses_tls(self) -> bool:
        return self.protocol.endswith("SSL")

    @property
    def mechanism(self) -> str:
        """The SASL mechanism, upper case ('' without SASL)."""
        return self.sasl_mechanism.upper()

    @cached_property
    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context of every connection (None without TLS)."""
        if not self.uses_tls:
            return None
        try:
            context = ssl.create_default_context(cafile=self.ssl_ca_location or None)
        except ssl.SSLError as exc:
            raise ValueError(f"KAFKA_SSL_CA_LOCATION={self.ssl_ca_location!r} holds no usable "
                             f"CA certificate: {exc.reason or exc}") from None
        context.check_hostname = self.ssl_endpoint_identification_algorithm.lower() == "https"
        if self.ssl_certificate_location:
            try:
                context.load_cert_chain(self.ssl_certificate_location,
                                        self.ssl_key_location or None,
                                        self.ssl_key_password or None)
            except ssl.SSLError as exc:
                raise ValueError("KAFKA_SSL_CERTIFICATE_LOCATION / KAFKA_SSL_KEY_LOCATION: "
                                 "the client certificate and key do not load (wrong key, "
                                 f"or wrong KAFKA_SSL_KEY_PASSWORD): {exc.reason or exc}"
                                 ) from None
        return context

    @cached_property
    def token_provider(self) -> AbstractTokenProvider | None:
        """The OAUTHBEARER token provider of this process (None without OAUTHBEARER)."""
        if self.mechanism != "OAUTHBEARER":
            return None
        if self.sasl_oauthbearer_token_file:
            return FileTokenProvider(self.sasl_oauthbearer_token_file)
        return load_token_provider(self.sasl_oauthbearer_token_provider)

    def client_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of an aiokafka client for these settings."""
        kwargs: dict[str, Any] = {"security_protocol": self.protocol}
        if self.uses_tls:
            kwargs["ssl_context"] = self.ssl_context
        if self.mechanism:
            kwargs["sasl_mechanism"] = self.mechanism
        if self.mechanism == "OAUTHBEARER":
            kwargs["sasl_oauth_token_provider"] = self.token_provider
        elif self.mechanism:
            kwargs["sasl_plain_username"] = self.sasl_username
            kwargs["sasl_plain_password"] = self.sasl_password
        return kwargs

    def describe(self) -> str:
        """A one-line summary for logs and messages (never a secret)."""
        parts = [self.protocol]
        if self.uses_tls:
            parts.append(f"CA {self.ssl_ca_location or 'system'}")
            if self.ssl_certificate_location:
                parts.append(f"client certificate {self.ssl_certificate_location}")
            if self.ssl_endpoint_identification_algorithm.lower() == "none":
                parts.append("hostname not checked")
        if self.mechanism == "OAUTHBEARER":
            parts.append("OAUTHBEARER")
        elif self.mechanism:
            parts.append(f"{self.mechanism} as {self.sasl_username}")
        return ", ".join(parts)

    def to_env(self) -> dict[str, str]:
        """The variables that reproduce these settings in a child process (a secret read
        from a file is passed as its file)."""
        from_files = dict(self.secret_files)
        env: dict[str, str] = {}
        for f in fields(self):
            if f.name == "secret_files":
                continue
            if f.name in from_files:
                env[FILE_VARS[f.name]] = from_files[f.name]
            elif getattr(self, f.name) != f.default:
                env[ENV_VARS[f.name]] = str(getattr(self, f.name))
        return env


class FileTokenProvider(AbstractTokenProvider):
    """OAUTHBEARER tokens read from a file at each authentication (a sidecar or the
    platform keeps the file fresh, as Kubernetes does with projected tokens)."""

    def __init__(self, path: str):
        self.path = path

    async def token(self) -> str:
        return _read_secret("KAFKA_SASL_OAUTHBEARER_TOKEN_FILE", self.path)


def load_token_provider(spec: str) -> AbstractTokenProvider:
    """The token provider at import path `module:attr` (an AbstractTokenProvider instance,
    or a class or zero-argument callable returning one)."""
    module_name, sep, attr = spec.partition(":")
    if not sep:
        raise ValueError(f"KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER={spec!r} is not module:attr")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER={spec!r} cannot be loaded: "
                         f"{exc}") from None
    provider = target if isinstance(target, AbstractTokenProvider) else target()
    if not isinstance(provider, AbstractTokenProvider):
        raise ValueError(f"KAFKA_SASL_OAUTHBEARER_TOKEN_PROVIDER={spec!r} is not an "
                         "aiokafka.abc.AbstractTokenProvider")
    return provider


def _read_secret(variable: str, path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ValueError(f"{variable}={path!r} cannot be read: {exc.strerror}") from None
