"""state.toml: remembered choices survive a round trip; a bad file is forgotten, never fatal."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from app.settings.state import State, load_state, save_state


def test_round_trip_through_a_real_file(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "state.toml"
    state = State(provider="kenari", model="step-3-7-flash:free", theme="nord")
    save_state(path, state)
    assert load_state(path) == state
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Written by triptych")
    assert tomllib.loads(text) == {
        "provider": "kenari",
        "model": "step-3-7-flash:free",
        "theme": "nord",
    }


def test_unset_values_are_left_out(tmp_path: Path) -> None:
    path = tmp_path / "state.toml"
    save_state(path, State(provider="demo"))
    assert tomllib.loads(path.read_text(encoding="utf-8")) == {"provider": "demo"}
    assert load_state(path) == State(provider="demo")


def test_saving_replaces_the_file_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    path = tmp_path / "state.toml"
    save_state(path, State(provider="a", model="m1"))
    save_state(path, State(provider="b"))
    assert load_state(path) == State(provider="b")
    assert [p.name for p in tmp_path.iterdir()] == ["state.toml"]


def test_failed_save_raises_and_keeps_nothing_half_written(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(FileExistsError):
        save_state(blocker / "state.toml", State(provider="a"))
    assert blocker.read_text(encoding="utf-8") == "x"


def test_failed_rename_removes_the_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "state.toml"
    target.mkdir()  # os.replace cannot put a file over a directory
    with pytest.raises(IsADirectoryError):
        save_state(target, State(provider="a"))
    assert [p.name for p in tmp_path.iterdir()] == ["state.toml"]
    assert target.is_dir()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, State()),
        (b"provider = \n", State()),
        (b"\xff\xfe not text", State()),
        (b'provider = 3\nmodel = "m"\ntheme = ["x"]\n', State(model="m")),
        (b'provider = ""\ntheme = "nord"\nextra = true\n', State(theme="nord")),
    ],
    ids=["missing", "broken-toml", "not-utf8", "wrong-types", "empty-and-unknown"],
)
def test_missing_or_broken_file_is_tolerated(
    tmp_path: Path, content: bytes | None, expected: State
) -> None:
    path = tmp_path / "state.toml"
    if content is not None:
        path.write_bytes(content)
    assert load_state(path) == expected


def test_a_directory_in_place_of_the_file_reads_as_empty(tmp_path: Path) -> None:
    assert load_state(tmp_path) == State()
