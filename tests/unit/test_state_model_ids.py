"""A model id is server data: one with control characters (an escape
sequence, a newline, a bidi override) is never written to state.toml, nor read back from one
edited by hand; markup-looking brackets are just characters."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.settings.state import State, load_state, save_state, valid_model_id

HOSTILE = ["\x1b]0;pwned\x07m", "m\nmodel = 'x'", "m\x9b31m", "m\u202egnp.exe", "", " m"]


@pytest.mark.parametrize("model", HOSTILE)
def test_a_model_id_with_control_characters_is_not_valid(model: str) -> None:
    assert not valid_model_id(model)


@pytest.mark.parametrize("model", ["gpt-4o", "[bold]markup[/]", "models/gemini-2.0", "ü-1:8b"])
def test_ordinary_ids_are_valid(model: str) -> None:
    assert valid_model_id(model)


@pytest.mark.parametrize("model", HOSTILE)
def test_save_state_never_stores_one(tmp_path: Path, model: str) -> None:
    path = tmp_path / "state.toml"
    save_state(path, State(provider="p", model=model, config_model=model))
    text = path.read_text(encoding="utf-8")
    assert not any(ord(c) < 0x20 and c != "\n" for c in text)
    assert "pwned" not in text
    assert load_state(path).model is None
    assert load_state(path).provider == "p"


def test_load_state_forgets_one_written_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "state.toml"
    path.write_text('provider = "p"\nmodel = "\\u001b]52;c;SGk=\\u0007m"\n', encoding="utf-8")
    assert load_state(path) == State(provider="p")
    path.write_text('provider = "p"\nmodel = "[bold]markup[/]"\n', encoding="utf-8")
    assert load_state(path).model == "[bold]markup[/]"
