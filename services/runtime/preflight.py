"""The start-up check of every process that talks to Kafka: can it connect and
authenticate, and does the broker grant producer ids (idempotent producers)?

A wrong password, an untrusted or mismatched certificate, or a broker that stays
unreachable becomes one `BrokerUnusable` line; the commands print it and exit non-zero
instead of retrying forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import struct
import time
from collections.abc import Callable
from dataclasses import replace

from aiokafka.conn import AIOKafkaConnection, create_conn
from aiokafka.errors import KafkaError
from aiokafka.protocol.transaction import InitProducerIdRequest

from services.runtime.config import RuntimeConfig

_ATTEMPT_TIMEOUT_S = 5.0
_PAUSE_S = (0.2, 2.0)


class BrokerUnusable(Exception):
    """Kafka cannot be used with these settings; `permanent` when waiting will not help."""

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


def bootstrap_addresses(bootstrap: str) -> list[tuple[str, int]]:
    """`host:port,...` as (host, port) pairs."""
    found: list[tuple[str, int]] = []
    for item in filter(None, (part.strip() for part in bootstrap.split(","))):
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"KAFKA_BOOTSTRAP_SERVERS: {item!r} is not host:port")
        found.append((host.strip("[]"), int(port)))
    if not found:
        raise ValueError("KAFKA_BOOTSTRAP_SERVERS is empty")
    return found


async def check_broker(config: RuntimeConfig, timeout_s: float | None = None,
                       waiting: Callable[[str], None] | None = None) -> RuntimeConfig:
    """Connect and authenticate to a bootstrap server, retrying an unreachable one for
    `timeout_s` (default: config.connect_timeout_s; `waiting` is told once why); returns
    `config` with `enable_idempotence` decided. Raises BrokerUnusable."""
    deadline = time.monotonic() + (config.connect_timeout_s if timeout_s is None else timeout_s)
    addresses = bootstrap_addresses(config.bootstrap_servers)
    pause, told, last = _PAUSE_S[0], False, ""
    while True:
        for host, port in addresses:
            try:
                conn = await _connect(config, host, port)
            except BrokerUnusable as exc:
                if exc.permanent:
                    raise
                last = str(exc)
                continue
            try:
                return await _decide_idempotence(config, conn)
            finally:
                conn.close()
        if time.monotonic() + pause > deadline:
            raise BrokerUnusable(f"Kafka at {config.bootstrap_servers} is unreachable: {last}",
                                 permanent=False)
        if waiting is not None and not told:
            waiting(f"waiting for Kafka at {config.bootstrap_servers} ({last})")
            told = True
        await asyncio.sleep(pause)
        pause = min(pause * 2, _PAUSE_S[1])


async def _connect(config: RuntimeConfig, host: str, port: int) -> AIOKafkaConnection:
    """One connection, TLS and SASL done; failures become BrokerUnusable."""
    settings = config.kafka
    where = f"{host}:{port}"
    try:
        if settings.uses_tls:
            await _tls_round_trip(config, host, port)
        return await asyncio.wait_for(
            create_conn(host, port, request_timeout_ms=int(_ATTEMPT_TIMEOUT_S * 1000),
                        **settings.client_kwargs()),
            _ATTEMPT_TIMEOUT_S)
    except ssl.SSLCertVerificationError as exc:
        raise BrokerUnusable(_certificate_problem(exc, where, config), permanent=True) from None
    except ssl.SSLError as exc:
        reason = str(exc.reason or exc)
        hint = ("the broker wants a client certificate: set KAFKA_SSL_CERTIFICATE_LOCATION "
                "and KAFKA_SSL_KEY_LOCATION" if "CERTIFICATE_REQUIRED" in reason else
                "is it a TLS listener, and does it accept this client's certificate?")
        raise BrokerUnusable(f"TLS with {where} failed: {reason} ({hint})",
                             permanent=True) from None
    except (KafkaError, KeyError) as exc:
        if settings.mechanism and _is_sasl_failure(exc):
            # aiokafka's SCRAM raises KeyError on the server's error reply (no "v=").
            raise BrokerUnusable(
                f"SASL {settings.mechanism} authentication as {settings.sasl_username or '-'} "
                f"at {where} failed: {_sasl_reason(exc)}", permanent=True) from None
        hint = ("" if settings.uses_tls or "closed" not in str(exc) else
                " (if it is a TLS or SASL listener, set KAFKA_SECURITY_PROTOCOL)")
        raise BrokerUnusable(f"{where}: {exc}{hint}", permanent=False) from None
    except TimeoutError:
        hint = " (is it a TLS listener?)" if settings.uses_tls else ""
        raise BrokerUnusable(f"{where}: no answer within {_ATTEMPT_TIMEOUT_S:g} s{hint}",
                             permanent=False) from None
    except OSError as exc:
        raise BrokerUnusable(f"{where}: {exc.strerror or exc}", permanent=False) from None


async def _tls_round_trip(config: RuntimeConfig, host: str, port: int) -> None:
    """A TLS connection carrying one ApiVersions request and its answer's first bytes: a
    broker that refuses this client's certificate says so only after the handshake (TLS
    1.3), which aiokafka reports as a closed connection."""
    client_id = b"citeflow-preflight"
    body = struct.pack(">hhih", 18, 0, 1, len(client_id)) + client_id
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(host, port, ssl=config.kafka.ssl_context,
                                server_hostname=host), _ATTEMPT_TIMEOUT_S)
    try:
        writer.write(struct.pack(">i", len(body)) + body)
        await writer.drain()
        await asyncio.wait_for(reader.readexactly(4), _ATTEMPT_TIMEOUT_S)
    except asyncio.IncompleteReadError:
        raise OSError("the connection was closed after the TLS handshake") from None
    finally:
        writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await writer.wait_closed()


def _certificate_problem(exc: ssl.SSLCertVerificationError, where: str,
                         config: RuntimeConfig) -> str:
    message = exc.verify_message or str(exc)
    if "mismatch" in message.lower():
        return (f"TLS with {where}: the broker's certificate does not name {where.rsplit(':')[0]}"
                f" ({message}); connect by a name the certificate holds, or set "
                "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM=none")
    ca = config.kafka.ssl_ca_location or "the system's CA store"
    return (f"TLS with {where}: the broker's certificate is not trusted by {ca} ({message}); "
            "set KAFKA_SSL_CA_LOCATION to the CA that signed it")


def _is_sasl_failure(exc: BaseException) -> bool:
    name = type(exc).__name__
    return isinstance(exc, KeyError) or "Sasl" in name or "Authentication" in name


def _sasl_reason(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return "the broker refused the credentials"
    return str(exc) or type(exc).__name__


async def _decide_idempotence(config: RuntimeConfig, conn: AIOKafkaConnection) -> (
    RuntimeConfig
):
    """Ask for a producer id unless the setting is explicit. A broker that cannot give one
    (the embedded Tansu broker answers InitProducerId with an unknown error) gets
    acks=all producers without idempotence; a duplicate from a retried send keeps its
    event id, which every consumer of citeflow recognises."""
    if config.enable_idempotence is not None:
        return config
    try:
        response = await asyncio.wait_for(
            conn.send(InitProducerIdRequest(transactional_id=None,
                                            transaction_timeout_ms=60_000)),
            _ATTEMPT_TIMEOUT_S)
    except (KafkaError, OSError, TimeoutError):
        return replace(config, enable_idempotence=False)
    granted = response.error_code == 0 and response.producer_id >= 0
    return replace(config, enable_idempotence=granted)


