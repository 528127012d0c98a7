"""Certificates for TLS tests, made by the `openssl` command: a CA, a broker certificate
for one host name (and 127.0.0.1), a client certificate for mutual TLS, and a second CA
that signed nothing here (the "untrusted" case)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pki:
    ca: Path
    other_ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


_KEY = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def _ca(directory: Path, name: str) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.pem", directory / f"{name}-key.pem"
    _openssl("req", "-x509", *_KEY, "-nodes", "-days", "2",
             "-subj", f"/CN={name}", "-keyout", str(key), "-out", str(cert),
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return cert, key


def _signed(directory: Path, name: str, ca: tuple[Path, Path], extensions: str,
            key_password: str | None = None) -> tuple[Path, Path]:
    cert, key, csr = (directory / f"{name}.pem", directory / f"{name}-key.pem",
                      directory / f"{name}.csr")
    ext = directory / f"{name}.ext"
    ext.write_text(extensions)
    _openssl("req", "-new", *_KEY, "-nodes", "-subj", f"/CN={name}",
             "-keyout", str(key), "-out", str(csr))
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca[0]), "-CAkey", str(ca[1]),
             "-CAcreateserial", "-days", "2", "-extfile", str(ext), "-out", str(cert))
    if key_password is not None:
        encrypted = directory / f"{name}-key.enc.pem"
        _openssl("pkcs8", "-topk8", "-in", str(key), "-out", str(encrypted),
                 "-passout", f"pass:{key_password}")
        encrypted.replace(key)
    return cert, key


def make_pki(directory: Path, host: str, key_password: str | None = None) -> Pki:
    """Certificates in `directory`: the broker's names `host` and 127.0.0.1."""
    directory.mkdir(parents=True, exist_ok=True)
    ca = _ca(directory, "ca")
    other = _ca(directory, "other-ca")
    server = _signed(directory, "broker", ca,
                     f"subjectAltName=DNS:{host},IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    client = _signed(directory, "client", ca, "extendedKeyUsage=clientAuth\n", key_password)
    return Pki(ca[0], other[0], *server, *client)
