"""`triptych batch` over loopback with the fake provider: text and JSONL files with a failing
provider, resume, Ctrl+C in a real process, 429/503 retries, CSV and Markdown, bad input."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import cli
from app.demo.frames import Answer
from app.demo.loopback import SeenRequest
from app.headless.ask import answer_json
from app.headless.batch_results import COLUMNS
from app.providers.client import Timing
from app.settings.config import ProviderConfig
from app.store import Store, StoredConversation, history_path
from app.wire.engine import Api
from app.wire.turn import Turn
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

ASK_KEYS = set(answer_json(ProviderConfig("p", Api.CHAT, "http://x", "m"), Turn(), Timing(0.0)))
RECORD_KEYS = ASK_KEYS | {"prompt_id", "prompt", "repeat", "retries"}
PLAIN = Answer(text=("Hello", ", ", "world", "."), input_tokens=11)


@pytest.fixture
def good() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


@pytest.fixture
def bad() -> Iterator[FakeProvider]:
    with FakeProvider() as server:
        yield server


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)


def config(tmp_path: Path, *servers: tuple[str, FakeProvider], extra: str = "") -> Path:
    body = ""
    for name, server in servers:
        body += (
            f'[providers.{name}]\napi = "chat"\nbase_url = "{server.url}"\nmodel = "m-{name}"\n'
            f"price_in = 1\nprice_out = 2\n{extra}\n"
        )
    path = tmp_path / "config.toml"
    path.write_text(body)
    return path


def batch(capsys: pytest.CaptureFixture[str], conf: Path, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--config", str(conf), "batch", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_conversations(store: Store) -> list[StoredConversation]:
    """The prompts of the one batch run in the history (the list shows the run as one entry)."""
    (entry,) = store.list_conversations()
    batch_id = store.load(entry.id).batch_id
    assert batch_id is not None
    return [store.load(i) for i in store.batch_conversations(batch_id)]


def lines_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def table_row(out: str, label: str) -> list[str]:
    for line in out.splitlines():
        if line.startswith(label + " "):
            return line.split()
    raise AssertionError(f"no row {label!r} in\n{out}")


# -- text and JSONL, with a failing provider -------------------------------------------------------


def test_a_text_file_with_a_failing_provider(
    tmp_path: Path, good: FakeProvider, bad: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "prompts.txt").write_text("first\n# a comment\n\nsecond\nthird\n")
    good.push(*(fake.stream(Api.CHAT, PLAIN) for _ in range(3)))
    bad.push(*(fake.http_error(Api.CHAT, 500, "boom", "it broke") for _ in range(3)))
    conf = config(tmp_path, ("good", good), ("bad", bad))

    code, out, err = batch(capsys, conf, "prompts.txt", "--compare", "good,bad", "--out", "r.jsonl")

    assert code == 1  # not every answer is complete
    records = lines_of(tmp_path / "r.jsonl")
    assert len(records) == 6
    assert all(set(r) == RECORD_KEYS for r in records)
    done = sorted((r["prompt_id"], r["prompt"]) for r in records if r["provider"] == "good")
    assert done == [(1, "first"), (4, "second"), (5, "third")]  # ids are line numbers
    for record in records:
        assert (record["repeat"], record["retries"]) == (1, 0)
        if record["provider"] == "good":
            assert (record["status"], record["text"], record["model"]) == (
                "complete", "Hello, world.", "m-good",
            )  # fmt: skip
        else:
            assert record["status"] == "failed"
            assert "it broke" in str(record["error"])
    assert table_row(out, "good:m-good")[1:4] == ["3", "0", "0"]
    assert table_row(out, "bad:m-bad")[1:4] == ["0", "3", "0"]
    # Not a terminal: one plain line per finished answer.
    assert sum(line.startswith("batch: ") and " · failed" in line for line in err.splitlines()) == 3
    assert "6/6 · " in err
    # One conversation of kind batch per prompt, each provider in its own pane.
    store = Store.open(history_path())
    conversations = run_conversations(store)
    assert sorted(c.messages[0].text for c in conversations) == ["first", "second", "third"]
    assert {c.kind for c in conversations} == {"batch"}
    stored = conversations[0]
    assert [(m.role, m.pane, m.provider) for m in stored.messages] == [
        ("user", None, None), ("assistant", 0, "good"), ("assistant", 1, "bad"),
    ]  # fmt: skip
    assert [m.turn.status.value for m in stored.messages if m.turn] == ["complete", "failed"]


def test_a_jsonl_file_with_ids_systems_and_repeats(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "set.jsonl").write_text(
        '{"id": "q-a", "prompt": "alpha", "system": "be brief"}\n\n{"prompt": "beta"}\n'
    )
    good.push(*(fake.stream(Api.CHAT, PLAIN) for _ in range(4)))
    conf = config(tmp_path, ("good", good))

    code, out, _err = batch(
        capsys, conf, "set.jsonl", "--compare", "good", "--repeat", "2", "--system", "default sys",
        "--out", "r.jsonl", "--tag", "nightly",
    )  # fmt: skip

    assert code == 0
    records = lines_of(tmp_path / "r.jsonl")
    assert sorted((str(r["prompt_id"]), r["repeat"]) for r in records) == [
        ("3", 1), ("3", 2), ("q-a", 1), ("q-a", 2),
    ]  # fmt: skip
    assert {type(r["prompt_id"]) for r in records} == {int, str}  # ids keep their JSON type
    systems = sorted(json.dumps(request.json["messages"][0]) for request in good.requests)
    assert systems == sorted(
        [json.dumps({"role": "system", "content": "be brief"})] * 2
        + [json.dumps({"role": "system", "content": "default sys"})] * 2
    )
    assert table_row(out, "good:m-good")[1:4] == ["4", "0", "0"]
    store = Store.open(history_path())
    (alpha,) = [c for c in run_conversations(store) if c.messages[0].text == "alpha"]
    messages = store.load(alpha.id).messages
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert store.load(alpha.id).system == "be brief"
    run = store.load(alpha.id).batch_id
    assert run is not None
    assert (store.batch(run).tag, store.batch(run).providers) == ("nightly", ("good:m-good",))
    assert store.batch(run).source == "set.jsonl"


# -- resume ----------------------------------------------------------------------------------------


def test_a_second_run_with_the_same_out_asks_only_what_is_not_complete(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.txt").write_text("one\ntwo\nthree\n")
    conf = config(tmp_path, ("good", good))
    good.push(
        fake.stream(Api.CHAT, PLAIN),
        fake.stream(Api.CHAT, PLAIN),
        fake.http_error(Api.CHAT, 500, "boom", "try later"),
    )
    argv = ("p.txt", "--compare", "good", "--concurrency", "1", "--out", "r.jsonl")
    assert batch(capsys, conf, *argv)[0] == 1
    assert [r["status"] for r in lines_of(tmp_path / "r.jsonl")] == [
        "complete", "complete", "failed",
    ]  # fmt: skip

    good.push(fake.stream(Api.CHAT, PLAIN))
    code, _out, err = batch(capsys, conf, *argv)

    assert code == 0
    assert len(good.requests) == 4  # only the failed answer was asked again
    assert "2 answers already complete" in err
    records = lines_of(tmp_path / "r.jsonl")
    assert [(r["prompt"], r["status"]) for r in records] == [
        ("one", "complete"), ("two", "complete"), ("three", "complete"),
    ]  # fmt: skip

    assert batch(capsys, conf, *argv)[0] == 0  # all done: nothing to ask
    assert len(good.requests) == 4


# -- Ctrl+C ----------------------------------------------------------------------------------------


def test_ctrl_c_stops_every_stream_keeps_finished_lines_and_exits_130(
    tmp_path: Path, good: FakeProvider
) -> None:
    (tmp_path / "p.txt").write_text("quick\nslow\n")
    conf = config(tmp_path, ("good", good))
    good.push(fake.stream(Api.CHAT, PLAIN), fake.paced_forever(Api.CHAT, delay=0.05))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "ch"), TRIPTYCH_DATA_DIR=str(tmp_path / "data"))
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--config", str(conf), "batch", "p.txt", "--compare",
         "good", "--concurrency", "1", "--out", "r.jsonl"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    assert "1/2 · good:m-good · prompt 1 #1 · complete" in process.stderr.readline()
    good.last_request(timeout=10)
    while len(good.requests) < 2:  # the slow answer's request has arrived: it is streaming
        good.last_request(timeout=0.05)

    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)

    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert "stopped on Ctrl+C" in err
    records = lines_of(tmp_path / "r.jsonl")
    assert [(r["prompt"], r["status"]) for r in records] == [("quick", "complete")]
    # complete, failed, stopped (the user's Ctrl+C), interrupted (a stream cut off)
    assert table_row(out, "good:m-good")[1:5] == ["1", "0", "1", "0"]
    store = Store.open(tmp_path / "data" / "history.sqlite3")
    (slow,) = [c for c in run_conversations(store) if c.messages[0].text == "slow"]
    answer = slow.messages[-1]
    assert answer.turn is not None
    assert answer.turn.status.value == "stopped"  # the history keeps the stopped answer


# -- retries ---------------------------------------------------------------------------------------


def test_429_and_503_are_retried_after_retry_after_and_counted(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.txt").write_text("only\n")
    conf = config(tmp_path, ("good", good))
    good.push(
        fake.http_error(Api.CHAT, 429, "rate_limit", "slow down", retry_after="0"),
        fake.http_error(Api.CHAT, 503, "overloaded", "busy", retry_after="0"),
        fake.stream(Api.CHAT, PLAIN),
    )

    code, out, err = batch(capsys, conf, "p.txt", "--compare", "good", "--out", "r.jsonl")

    assert code == 0
    (record,) = lines_of(tmp_path / "r.jsonl")
    assert (record["status"], record["retries"], record["text"]) == ("complete", 2, "Hello, world.")
    assert len(good.requests) == 3
    assert table_row(out, "good:m-good")[-1] == "2"  # the retries column
    assert "retry 1 of 3 in 0.0 s" in err
    assert "retry 2 of 3 in 0.0 s" in err


def test_a_429_without_retry_after_backs_off_and_gives_up_after_three_retries(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from app.headless import batch as batch_module

    monkeypatch.setattr(batch_module, "BACKOFF_BASE", 0.01)  # jittered, up to 10, 20, 40 ms
    (tmp_path / "p.txt").write_text("only\n")
    conf = config(tmp_path, ("good", good))
    good.push(*(fake.http_error(Api.CHAT, 429, "rate_limit", "slow down") for _ in range(5)))

    code, out, _err = batch(capsys, conf, "p.txt", "--compare", "good", "--out", "r.jsonl")

    assert code == 1
    assert len(good.requests) == 4  # the first try and three retries
    (record,) = lines_of(tmp_path / "r.jsonl")
    assert (record["status"], record["retries"]) == ("failed", 3)
    assert table_row(out, "good:m-good")[1:4] == ["0", "1", "0"]


def test_other_errors_are_not_retried(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.txt").write_text("only\n")
    conf = config(tmp_path, ("good", good))
    good.push(fake.http_error(Api.CHAT, 400, "bad_request", "no", retry_after="0"))
    assert batch(capsys, conf, "p.txt", "--compare", "good")[0] == 1
    assert len(good.requests) == 1


# -- CSV and Markdown ------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".md"])
def test_csv_and_markdown_results_are_tables_and_resume(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    (tmp_path / "p.txt").write_text("pipes | and \\ slashes\nplain\n")
    conf = config(tmp_path, ("good", good))
    two_lines = Answer(text=("line one\n", "line | two"), input_tokens=3)
    good.push(fake.stream(Api.CHAT, two_lines), fake.stream(Api.CHAT, two_lines))
    out_file = f"r{suffix}"
    argv = ("p.txt", "--compare", "good", "--concurrency", "1", "--out", out_file)

    assert batch(capsys, conf, *argv)[0] == 0

    text = (tmp_path / out_file).read_text()
    if suffix == ".csv":
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        assert list(rows[0]) == list(COLUMNS)
        assert [row["prompt"] for row in rows] == ["pipes | and \\ slashes", "plain"]
        assert rows[0]["text"] == "line one\nline | two"
        assert (rows[0]["status"], rows[0]["provider"], rows[0]["input_tokens"]) == (
            "complete", "good", "3",
        )  # fmt: skip
    else:
        # a prompt × provider grid (status and an excerpt, escaped), the answers whole, then
        # the records a resumed run reads
        grid, _, records = text.partition("## Records\n\n")
        head = grid.splitlines()
        assert head[2:4] == ["| prompt | good:m-good |", "|---|---|"]
        assert head[4] == "| 1. pipes \\| and \\\\ slashes | complete · line one line \\| two |"
        assert head[5] == "| 2. plain | complete · line one line \\| two |"
        assert "### good:m-good · complete\n\nline one\nline | two\n" in grid
        lines = records.splitlines()
        assert lines[0] == "| " + " | ".join(COLUMNS) + " |"
        assert lines[1] == "|" + "---|" * len(COLUMNS)
        assert len(lines) == 4
        assert lines[2].startswith("| 1 | pipes \\| and \\\\ slashes | 1 | good | m-good | chat |")
        assert "| line one<br>line \\| two |" in lines[2]
    before = (tmp_path / out_file).read_bytes()
    assert batch(capsys, conf, *argv)[0] == 0  # resumed: both complete, nothing asked
    assert len(good.requests) == 2
    assert (tmp_path / out_file).read_bytes() == before


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "why"),
    [
        ("empty.txt", b"", "empty.txt: no prompts in the file"),
        ("comments.txt", b"# only\n\n", "comments.txt: no prompts in the file"),
        ("latin.txt", b"fine\ncaf\xe9\n", "latin.txt:2: not UTF-8"),
        ("bad.jsonl", b'{"prompt": "ok"}\n{"prompt": \n', "bad.jsonl:2: not a JSON object"),
        ("noprompt.jsonl", b'{"prompt": "ok"}\n\n{"id": 3}\n',
         'noprompt.jsonl:3: "prompt" is missing'),
        ("twice.jsonl", b'{"id": 1, "prompt": "a"}\n{"id": 1, "prompt": "b"}\n',
         "twice.jsonl:2: id 1 is already used on line 1"),
    ],
)  # fmt: skip
def test_a_bad_prompt_file_is_named_with_its_line_and_nothing_is_written(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str],
    name: str, content: bytes, why: str,
) -> None:  # fmt: skip
    (tmp_path / name).write_bytes(content)
    (tmp_path / "r.jsonl").write_text("")
    conf = config(tmp_path, ("good", good))
    code, out, err = batch(capsys, conf, name, "--compare", "good", "--out", "r.jsonl")
    assert code == 2
    assert why in err
    assert "Traceback" not in err
    assert out == ""
    assert good.requests == []
    assert (tmp_path / "r.jsonl").read_text() == ""
    assert not (tmp_path / "data" / "history.sqlite3").exists()


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--compare", "good,nosuch"], "unknown provider 'nosuch'"),
        (["--compare", "good", "--concurrency", "0"], "--concurrency must be at least 1, not 0"),
        (["--compare", "good", "--repeat", "0"], "--repeat must be at least 1, not 0"),
        (["--compare", "good,good"], "good:m-good twice"),
        (["--compare", "good", "--out", "r.txt"], "must end in .jsonl, .csv or .md"),
    ],
)
def test_bad_flags_are_usage_errors(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str],
    argv: list[str], why: str,
) -> None:  # fmt: skip
    (tmp_path / "p.txt").write_text("hi\n")
    code, _out, err = batch(capsys, config(tmp_path, ("good", good)), "p.txt", *argv)
    assert code == 2
    assert why in err
    assert good.requests == []


@pytest.mark.parametrize(
    ("existing", "why"),
    [
        ("just some notes\n", "r.jsonl:1: not a results file of `triptych batch`"),
        ('{"a": 1}\n', "r.jsonl:1: not a results file"),
        (
            json.dumps({"provider": "good", "model": "m-good", "status": "complete",
                        "prompt_id": 9, "prompt": "other", "repeat": 1, "retries": 0}) + "\n",
            "r.jsonl:1: from another run (prompt id '9')",
        ),
        (
            json.dumps({"provider": "else", "model": "m", "status": "complete",
                        "prompt_id": 1, "prompt": "hi", "repeat": 1, "retries": 0}) + "\n",
            "r.jsonl:1: from another run (provider else:m)",
        ),
    ],
)  # fmt: skip
def test_a_results_file_that_is_not_ours_or_from_another_run_is_left_alone(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str],
    existing: str, why: str,
) -> None:  # fmt: skip
    (tmp_path / "p.txt").write_text("hi\n")
    (tmp_path / "r.jsonl").write_text(existing)
    conf = config(tmp_path, ("good", good))
    code, _out, err = batch(capsys, conf, "p.txt", "--compare", "good", "--out", "r.jsonl")
    assert code == 2
    assert why in err
    assert (tmp_path / "r.jsonl").read_text() == existing
    assert good.requests == []


def test_max_concurrency_must_be_a_positive_integer(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.txt").write_text("hi\n")
    conf = config(tmp_path, ("good", good), extra="max_concurrency = 0")
    code, _out, err = batch(capsys, conf, "p.txt", "--compare", "good")
    assert code == 2
    assert "providers.good.max_concurrency: must be a positive integer, not 0" in err


# -- concurrency ---------------------------------------------------------------------------------


def most_at_once(requests: list[SeenRequest]) -> int:
    """The most requests being answered at one time, from the servers' own clock readings (a
    reply ends when sent in full, or when the client, done at the terminal event, hung up)."""
    events = []
    for request in requests:
        ended = request.finished or request.disconnected
        assert ended is not None
        events += [(request.received, 1), (ended, -1)]
    events.sort(key=lambda event: (event[0], event[1]))  # an end before a start at a tie
    most = current = 0
    for _, step in events:
        current += step
        most = max(most, current)
    return most


def test_at_most_n_requests_are_in_flight_and_at_most_max_concurrency_per_provider(
    tmp_path: Path, good: FakeProvider, bad: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.txt").write_text("".join(f"prompt {i}\n" for i in range(12)))
    slow = lambda: fake.stream(Api.CHAT, PLAIN, delay=0.02)  # noqa: E731
    good.push(*(slow() for _ in range(12)))
    bad.push(*(slow() for _ in range(12)))
    conf = tmp_path / "config.toml"
    conf.write_text(
        f'[providers.wide]\napi = "chat"\nbase_url = "{good.url}"\nmodel = "m"\n\n'
        f'[providers.narrow]\napi = "chat"\nbase_url = "{bad.url}"\nmodel = "m"\n'
        "max_concurrency = 2\n"
    )

    code, out, _err = batch(capsys, conf, "p.txt", "--compare", "wide,narrow", "--concurrency", "5")

    assert code == 0
    assert table_row(out, "wide:m")[1] == "12"
    assert table_row(out, "narrow:m")[1] == "12"
    assert most_at_once(bad.requests) <= 2  # the provider's own limit
    assert most_at_once(good.requests + bad.requests) <= 5  # the run's limit
    assert most_at_once(good.requests) > 2  # the other provider was not held to 2


def test_a_line_cut_short_by_a_kill_is_asked_again(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.txt").write_text("one\ntwo\n")
    conf = config(tmp_path, ("good", good))
    good.push(fake.stream(Api.CHAT, PLAIN), fake.stream(Api.CHAT, PLAIN))
    argv = ("p.txt", "--compare", "good", "--concurrency", "1", "--out", "r.jsonl")
    assert batch(capsys, conf, *argv)[0] == 0
    whole, second = (tmp_path / "r.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "r.jsonl").write_text(whole + second[: len(second) // 2])  # killed mid-write

    good.push(fake.stream(Api.CHAT, PLAIN))
    assert batch(capsys, conf, *argv)[0] == 0

    assert len(good.requests) == 3  # only the answer whose line was cut
    assert [r["prompt"] for r in lines_of(tmp_path / "r.jsonl")] == ["one", "two"]


@pytest.mark.parametrize(
    ("out", "why"),
    [
        ("missing/r.jsonl", "--out missing/r.jsonl: cannot write it"),
        ("zero.jsonl", "--out zero.jsonl: not a regular file"),
        (".", "--out .: the name must end in .jsonl, .csv or .md"),
    ],
)
def test_an_out_that_cannot_be_written_or_read_is_a_usage_error(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str], out: str, why: str
) -> None:
    (tmp_path / "p.txt").write_text("hi\n")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    code, _out, err = batch(capsys, config(tmp_path, ("good", good)), "p.txt", "--compare",
                            "good", "--out", out)  # fmt: skip
    assert code == 2
    assert why in err
    assert "Traceback" not in err
    assert good.requests == []


# -- hostile files, headers and neighbours -----------------------------------------------------


def run_cli(tmp_path: Path, conf: Path, *argv: str, timeout: float = 60) -> tuple[int, str, str]:
    """The command in a process of its own: a hang is a failed test, not a stuck suite."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "ch"), TRIPTYCH_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run(
        [sys.executable, "-m", "app", "--config", str(conf), "batch", *argv],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_prompt_file_that_is_a_fifo_or_a_device_is_refused_at_once(
    tmp_path: Path, good: FakeProvider, kind: str
) -> None:
    if kind == "fifo":
        os.mkfifo(tmp_path / "p.txt")  # no writer: opening it to read would wait forever
    else:
        (tmp_path / "p.txt").symlink_to("/dev/zero")  # never ends: 256 MiB read, then refused
    conf = config(tmp_path, ("good", good))
    code, out, err = run_cli(tmp_path, conf, "p.txt", "--compare", "good", timeout=20)
    assert code == 2
    assert err == (
        "triptych: p.txt: not a regular file (a pipe, a device or a socket); "
        "save the prompts to a file and give that\n"
    )
    assert out == ""
    assert good.requests == []


def test_only_line_feeds_end_a_prompt_line(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    """U+2028, a form feed and NEL are text inside a line, as an editor shows them; the ids
    (line numbers) are the editor's."""
    (tmp_path / "p.txt").write_text("one\u2028still one\x0cand\x85one\r\ntwo\n", newline="")
    (tmp_path / "p.jsonl").write_text('{"prompt": "a\u2028b"}\n{"prompt": "c"}\n')
    good.push(*(fake.stream(Api.CHAT, PLAIN) for _ in range(4)))
    conf = config(tmp_path, ("good", good))

    assert batch(capsys, conf, "p.txt", "--compare", "good", "--out", "t.jsonl")[0] == 0
    code, _out, err = batch(capsys, conf, "p.jsonl", "--compare", "good", "--out", "j.jsonl")

    assert code == 0, err
    assert sorted((r["prompt_id"], r["prompt"]) for r in lines_of(tmp_path / "t.jsonl")) == [
        (1, "one\u2028still one\x0cand\x85one"), (2, "two"),
    ]  # fmt: skip
    assert sorted((r["prompt_id"], r["prompt"]) for r in lines_of(tmp_path / "j.jsonl")) == [
        (1, "a\u2028b"), (2, "c"),
    ]  # fmt: skip


@pytest.mark.parametrize("suffix", [".md", ".jsonl", ".csv"])
def test_an_answer_holding_line_separators_resumes(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    (tmp_path / "p.txt").write_text("ask\n")
    odd = Answer(text=("a\u2028b\u2029c", "\x85d\x0ce\x1cf\rg"), input_tokens=3)
    good.push(fake.stream(Api.CHAT, odd))
    conf = config(tmp_path, ("good", good))
    argv = ("p.txt", "--compare", "good", "--out", f"x{suffix}")
    assert batch(capsys, conf, *argv)[0] == 0
    before = (tmp_path / f"x{suffix}").read_bytes()

    code, _out, err = batch(capsys, conf, *argv)

    assert code == 0, err
    assert "1 answers already complete" in err
    assert len(good.requests) == 1  # nothing asked again
    assert (tmp_path / f"x{suffix}").read_bytes() == before


def test_a_retry_after_too_long_to_wait_fails_the_answer_and_says_so(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.txt").write_text("only\n")
    conf = config(tmp_path, ("good", good))
    good.push(
        *(fake.http_error(Api.CHAT, 429, "rate_limit", "slow down", retry_after="99999999999")
          for _ in range(4)),
    )  # fmt: skip

    code, _out, err = batch(capsys, conf, "p.txt", "--compare", "good", "--out", "r.jsonl")

    assert code == 1
    assert len(good.requests) == 1  # not asked again at once (it was: the value overflowed)
    note = (
        "Retry-After asks for 99,999,999,999 s; a batch waits at most 300 s, so it was not "
        "asked again: run the batch again later to ask it"
    )
    assert f"batch: good:m-good · prompt 1 #1 · {note}\n" in err
    (record,) = lines_of(tmp_path / "r.jsonl")
    assert (record["status"], record["retries"]) == ("failed", 0)
    assert isinstance(record["error"], dict)
    assert str(record["error"]["message"]).endswith(f"({note})")


def test_a_second_run_on_the_same_out_is_refused_while_the_first_runs(
    tmp_path: Path, good: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.txt").write_text("slow\n")
    conf = config(tmp_path, ("good", good))
    good.push(fake.paced_forever(Api.CHAT, delay=0.05))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "ch"), TRIPTYCH_DATA_DIR=str(tmp_path / "data"))
    first = subprocess.Popen(
        [sys.executable, "-m", "app", "--config", str(conf), "batch", "p.txt", "--compare",
         "good", "--out", "r.jsonl"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        good.last_request(timeout=20)  # the first run is asking

        code, out, err = batch(capsys, conf, "p.txt", "--compare", "good", "--out", "r.jsonl")

        assert code == 2
        assert err == (
            f"triptych: --out r.jsonl: another `triptych batch` is writing it (process "
            f"{first.pid}); wait for it to end, or give another --out\n"
        )
        assert out == ""
        assert len(good.requests) == 1  # the second run asked nothing
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=30)
    assert first.returncode == 130
    assert not (tmp_path / ".r.jsonl.lock").exists()  # the lock goes with the run
    good.push(fake.stream(Api.CHAT, PLAIN))
    assert batch(capsys, conf, "p.txt", "--compare", "good", "--out", "r.jsonl")[0] == 0
