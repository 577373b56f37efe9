"""`triptych replay` of damaged or foreign recordings: one clear message naming
the file and line, exit 2, never a traceback; a newer format is named and refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app import cli

Line = dict[str, Any]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def recording(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[Line]:
    """The lines of a real recording: `ask hello --record` against the offline demo."""
    path = tmp_path / "good.jsonl"
    assert run(capsys, "ask", "hello", "--record", str(path))[0] == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["type"] for line in lines[:2]] == ["request", "response"]
    assert lines[2]["type"] == "data"
    assert "text" in lines[2]
    return lines


def save(tmp_path: Path, lines: list[Line], name: str = "bad.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_an_untouched_recording_replays(
    recording: list[Line], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "replay", str(save(tmp_path, recording, "good.jsonl")))
    assert code == 0
    assert out.strip()
    assert "complete" in err


def _data(lines: list[Line]) -> Line:
    return lines[2]


def _set(
    key: str, value: object, pick: Callable[[list[Line]], Line]
) -> Callable[[list[Line]], int]:
    def change(lines: list[Line]) -> int:
        line = pick(lines)
        line[key] = value
        return lines.index(line) + 1

    return change


def _swap_text_for(value: object) -> Callable[[list[Line]], int]:
    def change(lines: list[Line]) -> int:
        del lines[2]["text"]
        lines[2]["base64"] = value
        return 3

    return change


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        (_swap_text_for("@@not base64@@"), "base64"),
        (_swap_text_for(17), "base64"),
        (_set("text", 5, _data), "text must be a string"),
        (_set("text", None, _data), "text must be a string"),
        (_set("t", "soon", _data), "t must be a number"),
        (_set("status", "abc", lambda lines: lines[1]), "status must be an HTTP status"),
        (_set("status", 99999, lambda lines: lines[1]), "status must be an HTTP status"),
        (_set("status", True, lambda lines: lines[1]), "status must be an HTTP status"),
        (_set("headers", ["a"], lambda lines: lines[1]), "headers must be a table of strings"),
        (_set("headers", {"a": 1}, lambda lines: lines[1]), "headers must be a table of strings"),
        (_set("n", [1], lambda lines: lines[1]), "n must be"),
        (_set("outcome", 3, lambda lines: lines[-1]), "outcome must be a string"),
        (_set("format", "something-else/1", lambda lines: lines[0]), "not a Triptych recording"),
    ],
)
def test_a_damaged_line_is_named_and_exits_2(
    recording: list[Line],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[list[Line]], int],
    detail: str,
) -> None:
    number = change(recording)
    path = save(tmp_path, recording)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2
    assert out == ""
    assert err.startswith(f"triptych: cannot replay {path}:{number}: "), err
    assert detail in err
    assert "Traceback" not in err


def test_deeply_nested_json_is_a_damaged_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"type": "request", "body": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2
    assert err == f"triptych: cannot replay {path}:1: not a recording line\n"


def test_a_newer_format_is_named_and_refused(
    recording: list[Line], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording[0]["format"] = "triptych-recording/2"
    path = save(tmp_path, recording)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2
    assert out == ""
    assert err == (
        f"triptych: cannot replay {path}:1: it was recorded by a newer Triptych "
        "(format triptych-recording/2; this version reads triptych-recording/1): "
        "update Triptych to replay it\n"
    )


def test_a_special_file_is_refused_without_reading_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", "/dev/zero")
    assert code == 2
    assert err == "triptych: cannot replay /dev/zero: not a regular file\n"


def test_a_missing_file_is_a_plain_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.jsonl"))
    assert code == 2
    assert err == f"triptych: cannot replay {tmp_path / 'nope.jsonl'}: No such file or directory\n"


def test_a_recorded_404_names_the_url_and_what_to_check(
    recording: list[Line], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording[1]["status"] = 404
    data = [line for line in recording if line["type"] == "data"]
    for line in data[1:]:
        recording.remove(line)
    data[0]["text"] = "404 page not found"
    path = save(tmp_path, recording)
    code, _, err = run(capsys, "replay", str(path))
    assert code == 1
    url = recording[0]["url"]
    assert url.endswith("/v1/chat/completions")
    assert f"HTTP 404: 404 page not found (POST {url}): check base_url and api" in err
