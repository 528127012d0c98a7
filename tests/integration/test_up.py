"""`citeflow up --demo` (what `make run` runs): the embedded broker, every stage, the store
sink and the gateway as processes; the demo answer submitted over HTTP and its result
printed with the URLs and a curl line whose key works; Ctrl-C stops everything."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from services.broker import free_port
from tests.process_output import wait_for_output

pytestmark = pytest.mark.integration
REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO = REPO_ROOT / "services" / "examples" / "demo_answer.json"


def test_up_demo_serves_the_result_over_http(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "CITEFLOW_DATA_DIR": str(tmp_path / "data"),
           "CITEFLOW_DOCUMENT_STORE": str(tmp_path / "documents"), "COLUMNS": "200"}
    env.pop("KAFKA_BOOTSTRAP_SERVERS", None)
    out, err = tmp_path / "out.jsonl", tmp_path / "err.txt"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "up", "--demo", str(DEMO),
             "--http-port", str(port), "--log-dir", str(tmp_path / "logs")],
            cwd=REPO_ROOT, env=env, stdout=stdout, stderr=stderr, start_new_session=True)
    try:
        curl = wait_for_output(err, r"curl -H 'Authorization: Bearer (\S+)' (http://\S+)", process)
        key, url = curl.group(1), curl.group(2)
        viewer = wait_for_output(err, r"viewer:\s+(http://\S+)", process).group(1)
        assert viewer.endswith(f"#key={key}")
        result = json.loads(out.read_text().splitlines()[0])
        demo_id = json.loads(DEMO.read_text())["answer_id"]
        assert result["answer_id"] == demo_id and result["citations"]
        assert url.endswith(f"/v1/answers/{demo_id}")
        # The store sink records the result independently of ?wait= (which the gateway's
        # stream hub answers): poll until it is there.
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
        deadline = time.monotonic() + 60
        while True:
            with urllib.request.urlopen(request, timeout=10) as response:
                served = json.loads(response.read())
            if "renderings" in served or time.monotonic() > deadline:
                break
            assert served["status"] == "submitted"
            time.sleep(0.3)
        assert served["answer_id"] == demo_id
        assert served["renderings"]["html"] == result["renderings"]["html"]
        # The key is the demo tenant's: the answer was stamped with it.
        assert served["metadata"]["tenant"] == "demo"
        # The demo history: two models over the last hours, for the dashboard's charts.
        base = url.split("/v1/")[0]
        stats = urllib.request.Request(f"{base}/v1/stats?group_by=model&window=24h&bucket=1h",
                                       headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(stats, timeout=10) as response:
            groups = json.loads(response.read())
        text = json.dumps(groups)
        assert "example-llm-mini" in text and '"example-llm"' in text, text[:2000]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    assert code == 0, err.read_text()[-3000:]
    assert "broker stopped" in err.read_text()
