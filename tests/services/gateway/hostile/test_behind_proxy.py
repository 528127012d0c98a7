"""Behind a reverse proxy: the shipped nginx configuration (`deploy/proxy/citeflow.conf`)
in front of a real gateway started with the shipped deployment's proxy trust
(`FORWARDED_ALLOW_IPS` of the compose file's gateway). Before, no deployment trusted its
proxy: every client arrived from one address, and one client sending unauthenticated
bodies spent that address's tokens and refusals, so every other client of the proxy got
`429`s and closed connections."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml

from services.broker import free_port
from tests.integration.conftest import REPO_ROOT
from tests.services.gateway.hostile.conftest import Hostile, serving
from tests.services.gateway.hostile.test_http_limits import _read_all

pytestmark = pytest.mark.integration

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


@dataclass
class Proxied:
    gateway: Hostile
    port: int  # the proxy's

    def client(self, address: str) -> httpx.Client:
        """A client connecting to the proxy from `address` (a loopback address of its own)."""
        transport = httpx.HTTPTransport(local_address=address)
        return httpx.Client(base_url=f"http://127.0.0.1:{self.port}", transport=transport,
                            timeout=30)


def _compose_gateway_env() -> dict[str, str]:
    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    environment = compose["services"]["gateway"]["environment"]
    return {"FORWARDED_ALLOW_IPS": str(environment.get("FORWARDED_ALLOW_IPS", ""))}


def _nginx_conf(tmp: Path, port: int, gateway_port: int) -> Path:
    shipped = (REPO_ROOT / "deploy" / "proxy" / "citeflow.conf").read_text()
    assert "listen 8080;" in shipped and "server 127.0.0.1:8000;" in shipped
    site = shipped.replace("listen 8080;", f"listen 127.0.0.1:{port};").replace(
        "server 127.0.0.1:8000;", f"server 127.0.0.1:{gateway_port};")
    (tmp / "site.conf").write_text(site)
    temp = {name: tmp / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir()
    conf = tmp / "nginx.conf"
    conf.write_text(
        ("user root root;\n" if os.geteuid() == 0 else "")
        + f"pid {tmp / 'nginx.pid'};\nerror_log {tmp / 'error.log'};\nworker_processes 1;\n"
        "events { worker_connections 256; }\nhttp {\n  access_log off;\n"
        + "".join(f"  {name}_temp_path {path};\n" for name, path in (
            ("client_body", temp["body"]), ("proxy", temp["proxy"]),
            ("fastcgi", temp["fastcgi"]), ("uwsgi", temp["uwsgi"]), ("scgi", temp["scgi"])))
        + f"  include {tmp / 'site.conf'};\n}}\n")
    return conf


@pytest.fixture(scope="module")
def proxied(bootstrap: str, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[Proxied]:
    tmp = tmp_path_factory.mktemp("proxied")
    with serving(bootstrap, tmp, **_compose_gateway_env()) as gateway:
        port = free_port()
        nginx = subprocess.Popen(
            [NGINX, "-p", str(tmp), "-c", str(_nginx_conf(tmp, port, gateway.port)),
             "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True)
        try:
            deadline = time.monotonic() + 30
            while True:
                assert nginx.poll() is None, nginx.stderr.read() if nginx.stderr else ""
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "nginx did not come up"
                    time.sleep(0.1)
            yield Proxied(gateway, port)
        finally:
            os.killpg(nginx.pid, signal.SIGTERM)
            try:
                nginx.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(nginx.pid, signal.SIGKILL)
                nginx.wait(timeout=10)


def test_one_abusive_client_behind_the_proxy_does_not_lock_out_the_others(
        proxied: Proxied) -> None:
    gateway = proxied.gateway
    body = b'{"answer_id": "x", "text": "' + b"a" * 500_000 + b'"}'
    abuser_statuses: list[int] = []
    with (proxied.client("127.0.0.6") as abuser, proxied.client("127.0.0.7") as other,
          proxied.client("127.0.0.9") as reader):
        for _ in range(45):
            # Unauthenticated 500 KB bodies, claiming to be the other client: the proxy
            # replaces X-Forwarded-For with the address it saw.
            try:
                abuser_statuses.append(abuser.post(
                    "/v1/answers", content=body, headers={
                        "Content-Type": "application/json", "X-Forwarded-For": "127.0.0.7",
                        "Authorization": f"Bearer {secrets.token_hex(16)}"}).status_code)
            except httpx.TransportError:
                abuser_statuses.append(0)  # cut off: its own connection only
            assert other.get("/healthz").status_code == 200
            assert reader.get("/v1/answers", headers=gateway.auth(gateway.a)
                              ).status_code == 200
        # The abuser spent its own tokens ...
        assert 429 in abuser_statuses, abuser_statuses
        # ... not those of the other clients of the proxy: an unknown key is a plain 401.
        unknown = other.get("/v1/answers", headers={"Authorization": "Bearer cf_typo"})
        assert unknown.status_code == 401, unknown.text
    with proxied.client("127.0.0.10") as newcomer:
        assert newcomer.get("/healthz").status_code == 200


def test_a_client_the_proxy_names_is_shut_out_not_the_proxy(proxied: Proxied) -> None:
    """The trusted proxy (here the test, from 127.0.0.1) is never shut out; the refusals of
    its requests count against the client each names, once per request, and a shut-out
    client's next request gets 429 as soon as its head is in."""
    gateway = proxied.gateway

    def oversize(named: str) -> bytes:
        with socket.create_connection(("127.0.0.1", gateway.port), timeout=10) as sock:
            sock.sendall(b"POST /v1/answers HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nX-Forwarded-For: " + named.encode()
                         + b"\r\nTransfer-Encoding: chunked\r\nAuthorization: Bearer "
                         + gateway.a.encode() + b"\r\n\r\n")
            frame = f"{64 * 1024:x}\r\n".encode() + b" " * 64 * 1024 + b"\r\n"
            try:
                for _ in range(1024):
                    sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return _read_all(sock)

    first = [oversize("198.51.100.1") for _ in range(25)]
    assert b" 413 " in first[0].split(b"\r\n", 1)[0], first[0][:80]
    assert first[-1].startswith(b"HTTP/1.1 429"), first[-1][:80]
    assert b"retry-after:" in first[-1].lower()
    named_other = httpx.get(gateway.url + "/healthz", timeout=10,
                            headers={"X-Forwarded-For": "198.51.100.2"})
    assert named_other.status_code == 200

