"""The dashboard over the whole system (`citeflow up`: embedded broker, five stages, the store
sink, the gateway) in headless Chromium: results submitted over HTTP appear in its live
feed; the gateway is killed (-9) and restarted by the supervisor, answers formatted while it
is down arrive once it is back (the page reconnects and resumes with Last-Event-ID); charts
and the consumer lag per stage are drawn. Screenshots go to .citeflow/screenshots/."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import orjson
import pytest

from services.broker import free_port
from tests.process_output import wait_for_output
from tests.browser import start_browser
from tests.services.gateway.pages.site import (
    SCREENSHOTS,
    install_traps,
    traps_fired,
    wait_until,
)

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[4]
DEMO = orjson.loads((ROOT / "services" / "examples" / "demo_answer.json").read_bytes())


def _answer(answer_id: str) -> bytes:
    return orjson.dumps({**DEMO, "answer_id": answer_id,
                         "metadata": {**(DEMO.get("metadata") or {}), "tenant": "demo"}})


def _post(base: str, key: str, answer_id: str) -> int:
    request = urllib.request.Request(
        f"{base}/v1/answers", data=_answer(answer_id), method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return int(response.status)


def _gateway_pid(up_pid: int) -> int | None:
    """The `citeflow serve` child of our `citeflow up` (its own process, by id)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat[1]) == up_pid and b"serve" in cmdline:
            return int(entry.name)
    return None


def _status(base: str, key: str, answer_id: str) -> str | None:
    request = urllib.request.Request(f"{base}/v1/answers/{answer_id}",
                                     headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.headers.get("Citeflow-Status")
    except (urllib.error.URLError, OSError):
        return None


def _ready(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/readyz", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _feed(driver) -> set[str]:
    return set(driver.execute_script("return window.citeflowFeed || [];"))


def test_dashboard_live_feed_survives_a_gateway_restart(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "CITEFLOW_DATA_DIR": str(tmp_path / "data"),
           "CITEFLOW_DOCUMENT_STORE": str(tmp_path / "documents"),
           "CITEFLOW_READER_CACHE": str(tmp_path / "cache"), "COLUMNS": "200"}
    env.pop("KAFKA_BOOTSTRAP_SERVERS", None)
    err = tmp_path / "err.txt"
    with err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "up", "--http-port", str(port),
             "--log-dir", str(tmp_path / "logs")],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
            start_new_session=True)
    driver = None
    try:
        dashboard = wait_for_output(err, r"dashboard:\s+(http://\S+)", process).group(1)
        key = dashboard.split("#key=", 1)[1]
        base = dashboard.split("/dashboard", 1)[0]
        driver = start_browser()
        driver.set_window_size(1280, 900)
        install_traps(driver)
        driver.get(dashboard)
        wait_until(driver, lambda d: d.find_element("id", "connection").text == "live", 60)
        first = [f"live-{n}" for n in range(5)]
        for answer_id in first:
            assert _post(base, key, answer_id) == 202
        wait_until(driver, lambda d: set(first) <= _feed(d), 120)
        row = driver.find_element("css selector", "#feed li[data-answer-id='live-0'] a")
        assert row.get_attribute("href").endswith("/answers/live-0")

        # Kill the gateway; while it is down (and the page offline, so that it cannot
        # reconnect before they are formatted), answers go straight to the broker.
        gateway = _gateway_pid(process.pid)
        assert gateway is not None
        os.kill(gateway, signal.SIGKILL)
        wait_until(driver, lambda d: d.find_element("id", "connection").text != "live", 30)
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        missed = [f"missed-{n}" for n in range(3)]
        answers = tmp_path / "missed.jsonl"
        answers.write_bytes(b"\n".join(_answer(a) for a in missed) + b"\n")
        submitted = subprocess.run(
            [sys.executable, "-m", "services.cli", "submit", str(answers)], cwd=ROOT,
            env=env, capture_output=True, timeout=120, check=False)
        assert submitted.returncode == 0, submitted.stderr[-2000:]
        deadline = time.monotonic() + 120
        while not _ready(base):
            assert time.monotonic() < deadline, "the gateway did not come back"
            time.sleep(0.3)
        for answer_id in missed:  # formatted and stored before the page is back online
            deadline = time.monotonic() + 120
            while _status(base, key, answer_id) != "formatted":
                assert time.monotonic() < deadline, f"{answer_id} was not formatted"
                time.sleep(0.3)
        assert not set(missed) & _feed(driver)
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        wait_until(driver, lambda d: d.find_element("id", "connection").text == "live", 60)
        wait_until(driver, lambda d: set(missed) <= _feed(d), 120)
        assert driver.execute_script("return window.citeflowResumedFrom;")
        after = "after-restart"
        assert _post(base, key, after) == 202
        wait_until(driver, lambda d: after in _feed(d), 120)
        # Charts and pipeline health are drawn.
        wait_until(driver, lambda d: d.find_elements("css selector", "#lag tr[data-stage]"), 30)
        stages = {e.get_attribute("data-stage")
                  for e in driver.find_elements("css selector", "#lag tr[data-stage]")}
        assert {"ingest", "scoring", "citations", "spans", "formatting", "store"} <= stages
        wait_until(driver, lambda d: d.find_elements("css selector", "#chart-tenants canvas"), 60)
        # The support rates (citation recall and precision per model) are plotted too.
        wait_until(driver, lambda d: d.find_elements("css selector", "#chart-support canvas"), 60)
        # Answers per detected language (these answers are English).
        wait_until(driver, lambda d: "en" in d.find_element("id", "languages").text, 60)
        assert driver.find_elements("css selector", "#lag canvas")
        assert traps_fired(driver) == []
        driver.save_screenshot(str(SCREENSHOTS / "dashboard.png"))

        # A fresh page lists what came before it (once its stream is connected, so nothing
        # falls between the listing and the stream), newest first, below any live row.
        driver.get(dashboard)
        wait_until(driver, lambda d: d.find_element("id", "connection").text == "live", 60)
        everything = {*first, *missed, after}
        wait_until(driver, lambda d: everything <= _feed(d), 60)
        rows = [e.get_attribute("data-answer-id")
                for e in driver.find_elements("css selector", "#feed li")]
        assert rows[0] == after and len(rows) == len(set(rows))
    finally:
        if driver is not None:
            driver.quit()
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
