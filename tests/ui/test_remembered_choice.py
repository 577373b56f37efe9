"""The provider and model the app starts on: the choice remembered in state.toml, unless the
config's own choice (`default`, a provider's `model`) changed since it was remembered. Then the
config wins and the app says so, once; a remembered choice that wins is marked "(last used)"."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

from app.settings.config import Config, ProviderConfig
from app.ui.app import TriptychApp
from app.wire.engine import Api
from tests.ui.helpers import SIZE, make_app, wait_until


def config(default: str = "a", b_model: str = "b-1") -> Config:
    def provider(name: str, model: str) -> ProviderConfig:
        return ProviderConfig(
            name=name, api=Api.CHAT, base_url="http://127.0.0.1:9/v1", model=model
        )

    providers = {"a": provider("a", "a-1"), "b": provider("b", b_model), "c": provider("c", "c-1")}
    return Config(
        path=Path("/home/u/.config/triptych/config.toml"), default=default, providers=providers
    )


def remembered(tmp_path: Path, text: str) -> None:
    (tmp_path / "state.toml").write_text(text, encoding="utf-8")


def state_of(tmp_path: Path) -> dict[str, object]:
    return tomllib.loads((tmp_path / "state.toml").read_text(encoding="utf-8"))


B2_UNDER_A = 'provider = "b"\nmodel = "b-2"\nconfig_default = "a"\nconfig_model = "b-1"\n'


async def start(app: TriptychApp) -> tuple[str, str, str, list[str]]:
    """(provider, model, header subtitle, notifications) once the app is up."""
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        notes = [str(n.message) for n in app._notifications]
        return app.pane.provider.name, app.pane.model, app.sub_title, notes


async def test_a_remembered_choice_wins_and_says_last_used(tmp_path: Path) -> None:
    remembered(tmp_path, B2_UNDER_A)
    provider, model, header, notes = await start(make_app(config(), tmp_path))
    assert (provider, model) == ("b", "b-2")
    assert header == "b · b-2 (last used)"
    assert not any("config" in note for note in notes)


async def test_a_changed_default_wins_once_with_a_notice(tmp_path: Path) -> None:
    remembered(tmp_path, B2_UNDER_A)
    provider, model, header, notes = await start(make_app(config(default="c"), tmp_path))
    assert (provider, model) == ("c", "c-1")
    assert header == "c · c-1"
    assert [note for note in notes if "c · c-1" in note and "config.toml" in note]
    state = state_of(tmp_path)
    assert (state["provider"], state["model"], state["config_default"]) == ("c", "c-1", "c")
    provider, model, header, notes = await start(make_app(config(default="c"), tmp_path))
    assert (provider, model, header) == ("c", "c-1", "c · c-1")
    assert not any("config.toml" in note for note in notes)  # said once


async def test_a_changed_provider_model_wins_once_with_a_notice(tmp_path: Path) -> None:
    remembered(tmp_path, B2_UNDER_A)
    provider, model, header, notes = await start(make_app(config(b_model="b-9"), tmp_path))
    assert (provider, model) == ("b", "b-9")
    assert "(last used)" in header  # b itself is still the remembered provider, not the default
    assert [note for note in notes if "b · b-9" in note]
    provider, model, header, notes = await start(make_app(config(b_model="b-9"), tmp_path))
    assert (provider, model) == ("b", "b-9")
    assert not any("config.toml" in note for note in notes)


async def test_a_state_file_from_before_keeps_its_choice_and_learns_the_config(
    tmp_path: Path,
) -> None:
    remembered(tmp_path, 'provider = "b"\nmodel = "b-2"\ntheme = "triptych-light"\n')
    provider, model, header, notes = await start(make_app(config(), tmp_path))
    assert (provider, model, header) == ("b", "b-2", "b · b-2 (last used)")
    state = state_of(tmp_path)
    assert state["config_default"] == "a"
    assert state["config_model"] == "b-1"
    assert state["theme"] == "triptych-light"
    provider, model, _header, notes = await start(make_app(config(b_model="b-9"), tmp_path))
    assert (provider, model) == ("b", "b-9")  # an edit after the upgrade is noticed
    assert [note for note in notes if "b · b-9" in note]


async def test_no_last_used_mark_when_the_config_would_choose_the_same(tmp_path: Path) -> None:
    remembered(
        tmp_path, 'provider = "a"\nmodel = "a-1"\nconfig_default = "a"\nconfig_model = "a-1"\n'
    )
    _provider, _model, header, _notes = await start(make_app(config(), tmp_path))
    assert header == "a · a-1"


async def test_a_switch_remembers_what_the_config_said_and_drops_the_mark(tmp_path: Path) -> None:
    remembered(tmp_path, B2_UNDER_A)
    app = make_app(config(), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert app.sub_title == "b · b-2 (last used)"
        app.switch_to(app.config.providers["c"], "c-7")
        await wait_until(pilot, lambda: app.pane.model == "c-7")
        await pilot.pause()
        assert app.sub_title == "c · c-7"
    state = state_of(tmp_path)
    assert state == {
        "provider": "c",
        "model": "c-7",
        "theme": state["theme"],
        "config_default": "a",
        "config_model": "c-1",
        "config_theme": "",  # the config named no theme
    }


async def test_an_explicit_provider_is_not_marked_and_ignores_the_default(tmp_path: Path) -> None:
    remembered(tmp_path, B2_UNDER_A)
    provider, model, header, notes = await start(
        make_app(config(default="c"), tmp_path, provider="a")
    )
    assert (provider, model, header) == ("a", "a-1", "a · a-1")
    assert not any("config.toml" in note for note in notes)


def themed(theme: str | None) -> Config:
    from dataclasses import replace

    from app.settings.config import UiSettings

    return replace(config(), ui=UiSettings(theme=theme))


async def started_theme(app: TriptychApp) -> str:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        return app.theme


async def test_a_theme_set_in_the_config_since_wins_over_the_remembered_one(
    tmp_path: Path,
) -> None:
    # The first run remembers the theme the config had then (none); the user picks light.
    assert await started_theme(make_app(themed(None), tmp_path)) == "triptych-dark"
    app = make_app(themed(None), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.theme = "triptych-light"
        await pilot.pause()
    # Unchanged config: the remembered choice stays, start after start.
    assert await started_theme(make_app(themed(None), tmp_path)) == "triptych-light"
    assert await started_theme(make_app(themed(None), tmp_path)) == "triptych-light"
    # The user then writes a theme into the config: it wins, and keeps winning.
    assert await started_theme(make_app(themed("triptych-high-contrast"), tmp_path)) == (
        "triptych-high-contrast"
    )
    assert await started_theme(make_app(themed("triptych-high-contrast"), tmp_path)) == (
        "triptych-high-contrast"
    )
    assert state_of(tmp_path)["config_theme"] == "triptych-high-contrast"


async def test_an_old_state_file_keeps_its_theme(tmp_path: Path) -> None:
    remembered(tmp_path, B2_UNDER_A + 'theme = "triptych-light"\n')
    assert await started_theme(make_app(themed("triptych-dark"), tmp_path)) == "triptych-light"


async def test_a_start_that_changes_nothing_does_not_write_the_state_again(
    tmp_path: Path,
) -> None:
    """A start that changes nothing does not rewrite state.toml (a temp file, fsync, rename)
    before its first frame: the file already holds what it would write."""
    await start(make_app(config(), tmp_path))
    path = tmp_path / "state.toml"
    first = path.stat()
    saved = state_of(tmp_path)
    assert saved["provider"] == "a"
    await start(make_app(config(), tmp_path))
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
    assert state_of(tmp_path) == saved
    await start(make_app(config(default="b"), tmp_path))  # the config changed: remembered
    assert state_of(tmp_path)["provider"] == "b"
    assert path.stat().st_ino != first.st_ino


async def test_with_no_default_in_the_file_the_last_used_wins_over_a_key_found_since(
    tmp_path: Path,
) -> None:
    # The file names no default: "c" was worked out (the first provider whose key is set, say
    # one exported since the last session). The provider used last still wins, without notice.
    remembered(tmp_path, B2_UNDER_A)
    worked_out = replace(config(default="c"), default_named=False)
    provider, model, header, notes = await start(make_app(worked_out, tmp_path))
    assert (provider, model) == ("b", "b-2")
    assert header == "b · b-2 (last used)"
    assert not any("config" in note for note in notes)
