"""Local servers found on their own loopback ports: a fake Ollama on 127.0.0.1:11434 is listed
with its models (source `local`) and answers `ask --provider ollama --model M`; with nothing
listening, `--provider ollama` says so. The port is Ollama's real one, so a test that cannot
bind it (a real Ollama running here) is skipped, saying so."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import cli
from app.demo.loopback import Reply, SeenRequest, json_reply
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

OLLAMA = 11434
WAIT = 5.0  # seconds to wait for the port to be free again after a test closed its server
MODELS = {"object": "list", "data": [{"id": "qwen3:8b"}, {"id": "llama3.2:latest"}]}


@pytest.fixture(autouse=True)
def ollamas_port() -> Iterator[None]:
    """One test at a time on this machine uses (or probes) the port: xdist workers run this
    file's tests at once, and one's probe would take the reply another queued."""
    with open(Path(tempfile.gettempdir()) / f"triptych-tests-{OLLAMA}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    return tmp_path


class FakeOllama(FakeProvider):
    """The fake provider on Ollama's port, answering every `GET /v1/models` with `listing`
    (another test's app may probe the port too: that takes no queued reply)."""

    listing: object = MODELS

    def _route(self, request: SeenRequest) -> Reply:
        if request.method == "GET" and request.path == "/v1/models":
            return json_reply(200, self.listing)
        return super()._route(request)


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    server = None
    deadline = time.monotonic() + WAIT
    while server is None:
        try:
            server = FakeOllama(port=OLLAMA)
        except OSError as exc:
            if time.monotonic() > deadline:
                pytest.skip(f"127.0.0.1:{OLLAMA} is taken ({exc.strerror}): a real Ollama?")
            time.sleep(0.1)
    with server:
        yield server


def port_is_free(port: int) -> bool:
    deadline = time.monotonic() + WAIT
    while True:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
                return True
            except OSError:
                if time.monotonic() > deadline:
                    return False
        time.sleep(0.1)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_server_on_ollamas_port_is_listed_with_its_models(
    home: Path, ollama: FakeOllama, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "providers", "--json")
    assert code == 0, err
    row = next(row for row in json.loads(out) if row["name"] == "ollama")
    assert row["source"] == "local"
    assert row["models"] == ["qwen3:8b", "llama3.2:latest"]
    assert row["key_set"] is None
    assert row["base_url"] == f"http://127.0.0.1:{OLLAMA}/v1"
    assert ollama.requests[0].method == "GET"
    assert ollama.requests[0].path == "/v1/models"
    code, out, _ = run(capsys, "providers")
    line = next(line for line in out.splitlines() if line[2:].startswith("ollama "))
    assert f"local :{OLLAMA}" in line


def test_ask_provider_ollama_model_m_answers_from_it(home: Path, ollama: FakeOllama) -> None:
    ollama.push(fake.stream(Api.CHAT))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")},
        "XDG_CONFIG_HOME": str(home / "config-home"),
        "TRIPTYCH_DATA_DIR": str(home / "data"),
    }
    argv = ["ask", "--provider", "ollama", "--model", "llama3.2:latest", "--json", "hi"]
    done = subprocess.run(
        [sys.executable, "-m", "app", *argv], env=env, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert (answer["status"], answer["provider"], answer["model"]) == (
        "complete",
        "ollama",
        "llama3.2:latest",
    )
    request = ollama.last_request()
    assert request.path == "/v1/chat/completions"
    assert request.json["model"] == "llama3.2:latest"
    assert "authorization" not in request.headers  # a local server needs no key


def test_ask_provider_ollama_with_nothing_listening_says_so(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not port_is_free(OLLAMA):
        pytest.skip(f"127.0.0.1:{OLLAMA} is taken: something listens where Ollama would")
    code, _, err = run(capsys, "ask", "--provider", "ollama", "hi")
    assert code == 2
    assert "nothing answers GET /v1/models on http://127.0.0.1:11434" in err


def test_something_else_on_the_port_is_not_a_server(
    home: Path, ollama: FakeOllama, capsys: pytest.CaptureFixture[str]
) -> None:
    ollama.listing = {"hello": "not a model list"}
    code, out, _ = run(capsys, "providers", "--json")
    assert code == 0
    assert "ollama" not in {row["name"] for row in json.loads(out)}
