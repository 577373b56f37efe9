"""`triptych ask` as a real process: the demo right after install, and Ctrl+C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def environment(tmp_path: Path, pace: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(
        XDG_CONFIG_HOME=str(tmp_path / "config-home"),
        TRIPTYCH_DATA_DIR=str(tmp_path / "data"),
        TRIPTYCH_DEMO_PACE=pace,
    )
    return env


def triptych(*argv: str) -> list[str]:
    return [sys.executable, "-m", "app", *argv]


@pytest.mark.parametrize("json_flag", [False, True], ids=["text", "json"])
def test_ask_hello_works_with_no_config_no_key_no_network(tmp_path: Path, json_flag: bool) -> None:
    argv = triptych("ask", "hello", *(["--json"] if json_flag else []))
    done = subprocess.run(
        argv, env=environment(tmp_path, "0"), capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert "demo: offline sample" in done.stderr
    if json_flag:
        document = json.loads(done.stdout)
        assert document["status"] == "complete"
        assert "Hello from Triptych" in document["text"]
    else:
        assert "Hello from Triptych" in done.stdout


def test_ctrl_c_stops_cleanly_prints_json_and_exits_130(tmp_path: Path) -> None:
    process = subprocess.Popen(
        triptych("ask", "--json", "a long answer please"),
        env=environment(tmp_path, "1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    assert "demo: offline sample" in process.stderr.readline()  # the stream is starting
    time.sleep(0.8)  # past the first token (0.35 s), far from the end (about 20 s)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=10)
    assert time.monotonic() - sent < 2.0
    assert process.returncode == 130, err
    document = json.loads(out)
    assert document["status"] == "stopped"
    assert document["text"].startswith("_demo: offline sample")
    assert "Traceback" not in err
