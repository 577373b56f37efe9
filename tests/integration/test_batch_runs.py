"""A batch run in the history and in its own output: one history entry per run (not one per
prompt), `triptych history` one line for it; stops counted apart from interruptions; a resumed
run's table counting the whole --out file; `--out x.md` a prompt × provider grid. Real
processes and the CLI against fake providers over loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.demo.frames import Answer
from app.store import Store
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

PLAIN = Answer(text=("Hello", ", ", "world", "."), input_tokens=11)


@pytest.fixture
def good() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


def config(tmp_path: Path, server: FakeProvider, name: str = "good") -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[providers.{name}]\napi = "chat"\nbase_url = "{server.url}"\nmodel = "m-{name}"\n'
    )
    return path


def triptych(tmp_path: Path, conf: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "ch"), TRIPTYCH_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run(
        [sys.executable, "-m", "app", "--config", str(conf), *argv],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_five_runs_of_twenty_prompts_are_five_history_entries(
    tmp_path: Path, good: FakeProvider
) -> None:
    conf = config(tmp_path, good)
    (tmp_path / "p.txt").write_text("".join(f"prompt number {n}\n" for n in range(20)))
    for _ in range(100):
        good.push(fake.stream(Api.CHAT, PLAIN))
    for _ in range(5):
        done = triptych(tmp_path, conf, "batch", "p.txt", "--compare", "good")
        assert done.returncode == 0, done.stderr
    listed = triptych(tmp_path, conf, "history")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    runs = [line for line in lines if "  batch  " in line]
    assert len(runs) == 5, listed.stdout
    assert all("p.txt · 20 prompts" in line for line in runs)
    assert len(lines) == 5
    store = Store.open(tmp_path / "data" / "history.sqlite3")
    try:
        entries = store.list_conversations()
        batch = [s for s in entries if s.kind == "batch"]
        assert len(batch) == 5
        stored = store.load(batch[0].id)  # opening one: its run, every answer in it
        assert stored.batch_id is not None
        prompts = store.batch_conversations(stored.batch_id)
        assert len(prompts) == 20
        answers = [m for cid in prompts for m in store.load(cid).messages if m.role == "assistant"]
        assert len(answers) == 20
        assert all(m.text == "Hello, world." for m in answers)
        assert batch[0].message_count == 40
    finally:
        store.close()


def summary_row(out: str, label: str) -> list[str]:
    """The final table's row for `label`: complete, failed, stopped, interrupted, ..."""
    return next(line.split() for line in out.splitlines() if line.startswith(label))


def test_a_resumed_runs_summary_counts_the_whole_out_file(
    tmp_path: Path, good: FakeProvider
) -> None:
    conf = config(tmp_path, good)
    (tmp_path / "p.txt").write_text("one\ntwo\nthree\n")
    good.push(fake.stream(Api.CHAT, PLAIN), fake.stream(Api.CHAT, PLAIN))
    good.push(fake.http_error(Api.CHAT, 400, "bad_request", "bad request"))
    first = triptych(tmp_path, conf, "batch", "p.txt", "--compare", "good", "--out", "r.jsonl",
                     "--concurrency", "1")  # fmt: skip
    assert first.returncode == 1, first.stderr
    assert summary_row(first.stdout, "good:m-good")[1:3] == ["2", "1"]

    good.push(fake.stream(Api.CHAT, PLAIN))
    again = triptych(tmp_path, conf, "batch", "p.txt", "--compare", "good", "--out", "r.jsonl")
    assert again.returncode == 0, again.stderr
    assert "2 answers already complete" in again.stderr
    row = summary_row(again.stdout, "good:m-good")
    assert row[1:5] == ["3", "0", "0", "0"]  # the whole file, not the one answer re-asked
    assert row[-3] == "12"  # output tokens of all three answers (4 each)
    assert len(good.requests) == 4
