"""The embedded broker over TLS, for tests and `bench e2e --tls`: certificates made by the
`openssl` command and Debian's stunnel4 terminating TLS in front of Tansu.

Tansu 0.6.0 cannot serve TLS itself: its `--cert` option is declared as conflicting with
`--key` (so no key can be given), and with `--cert` alone it listens in plaintext. So
stunnel accepts TLS on one port (requiring a client certificate signed by the test CA:
mutual TLS) and forwards to Tansu's plaintext port; Tansu advertises stunnel's address,
so every connection a client makes after bootstrap goes through TLS as well.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from services.broker import EmbeddedBroker, free_port, port_open, start_broker
from services.runtime.supervisor import die_with_parent

# The broker's certificate names this host only (not 127.0.0.1: connecting by address is
# the hostname-mismatch case).
HOST = "localhost"
_KEY = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")
_READY_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Pki:
    """A CA, a second CA that signed nothing here, and the broker's and a client's
    certificate and key (PEM files)."""

    ca: Path
    other_ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def _ca(directory: Path, name: str) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.pem", directory / f"{name}-key.pem"
    _openssl("req", "-x509", *_KEY, "-nodes", "-days", "2", "-subj", f"/CN={name}",
             "-keyout", str(key), "-out", str(cert),
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return cert, key


def _signed(directory: Path, name: str, ca: tuple[Path, Path], extensions: str,
            key_password: str | None) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.pem", directory / f"{name}-key.pem"
    csr, ext = directory / f"{name}.csr", directory / f"{name}.ext"
    ext.write_text(extensions)
    _openssl("req", "-new", *_KEY, "-nodes", "-subj", f"/CN={name}", "-keyout", str(key),
             "-out", str(csr))
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca[0]), "-CAkey", str(ca[1]),
             "-CAcreateserial", "-days", "2", "-extfile", str(ext), "-out", str(cert))
    if key_password is not None:
        encrypted = directory / f"{name}-key.enc.pem"
        _openssl("pkcs8", "-topk8", "-in", str(key), "-out", str(encrypted),
                 "-passout", f"pass:{key_password}")
        encrypted.replace(key)
    return cert, key


def make_pki(directory: Path, key_password: str | None = None) -> Pki:
    """Certificates in `directory`, valid for two days; the broker's names HOST; the
    client's key is encrypted with `key_password` when one is given."""
    directory.mkdir(parents=True, exist_ok=True)
    ca, other = _ca(directory, "ca"), _ca(directory, "other-ca")
    server = _signed(directory, "broker", ca,
                     f"subjectAltName=DNS:{HOST}\nextendedKeyUsage=serverAuth\n", None)
    client = _signed(directory, "client", ca, "extendedKeyUsage=clientAuth\n", key_password)
    return Pki(ca[0], other[0], *server, *client)


def stunnel_binary() -> str:
    """Debian's stunnel4 (`make tls` installs it)."""
    found = shutil.which("stunnel4") or shutil.which("stunnel")
    if found is None:
        raise RuntimeError("stunnel4 is not installed (make tls, or apt-get install stunnel4)")
    return found


@dataclass
class TlsBroker:
    """Tansu behind a stunnel TLS terminator requiring client certificates."""

    broker: EmbeddedBroker
    terminator: subprocess.Popen[bytes]
    port: int
    pki: Pki

    @property
    def bootstrap(self) -> str:
        return f"{HOST}:{self.port}"

    def client_env(self) -> dict[str, str]:
        """The connection settings of a client with the test CA and client certificate."""
        return {"KAFKA_BOOTSTRAP_SERVERS": self.bootstrap, "KAFKA_SECURITY_PROTOCOL": "SSL",
                "KAFKA_SSL_CA_LOCATION": str(self.pki.ca),
                "KAFKA_SSL_CERTIFICATE_LOCATION": str(self.pki.client_cert),
                "KAFKA_SSL_KEY_LOCATION": str(self.pki.client_key)}

    @property
    def pids(self) -> list[int]:
        return [self.broker.pid, self.terminator.pid]

    def stop(self) -> None:
        """Stop the terminator and the broker (by their pids)."""
        if self.terminator.poll() is None:
            self.terminator.terminate()
            try:
                self.terminator.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.terminator.kill()
                self.terminator.wait()
        self.broker.stop()


def start_tls_broker(directory: Path, pki: Pki | None = None) -> TlsBroker:
    """Tansu on a free plaintext port and stunnel on another, certificates in `directory`."""
    pki = pki or make_pki(directory / "pki")
    port = free_port()
    broker = start_broker(free_port(), log_path=directory / "tansu.log",
                          advertised=f"{HOST}:{port}")
    config = directory / "stunnel.conf"
    config.write_text(
        "foreground = yes\npid =\nsyslog = no\ndebug = 5\n"
        f"output = {directory / 'stunnel.log'}\n"
        "[kafka]\n"
        f"accept = 127.0.0.1:{port}\nconnect = 127.0.0.1:{broker.port}\n"
        f"cert = {pki.server_cert}\nkey = {pki.server_key}\n"
        f"CAfile = {pki.ca}\nverifyChain = yes\nrequireCert = yes\n")
    terminator = subprocess.Popen([stunnel_binary(), str(config)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True,
                                  preexec_fn=die_with_parent)
    tls = TlsBroker(broker, terminator, port, pki)
    deadline = time.monotonic() + _READY_TIMEOUT_S
    while not port_open("127.0.0.1", port):
        if terminator.poll() is not None or time.monotonic() > deadline:
            tls.stop()
            raise RuntimeError(f"stunnel did not start (see {directory / 'stunnel.log'})")
        time.sleep(0.05)
    return tls
