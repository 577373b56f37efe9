"""The welcome card in an empty chat: on the demo it names the demo words, the keys that matter
and the config file to create; with a real provider, the provider and the keys. It goes when
the first prompt is sent and comes back with a new chat."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from app.demo.server import with_demo_providers
from app.settings.config import Config, load_config
from app.settings.paths import config_path
from app.ui.widgets.welcome import Welcome
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until

PLAIN = replace(ANSWER, reasoning=(), tool=None)
DEMO_WORDS = ("think", "tool", "long", "cut", "error")
KEYS = ("Enter", "Esc", "Ctrl+P", "Ctrl+O")


def flat(text: str) -> str:
    """Screen text with its lines joined, so a sentence wrapped at 80 columns still reads."""
    return " ".join(" ".join(line.strip(" │╭╮╰╯─") for line in text.splitlines()).split())


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    return tmp_path / "xdg"


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_demo_welcome_names_words_keys_and_the_config_to_create(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = make_app(with_demo_providers(Config(path=None)), tmp_path)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        shown = flat(screen_text(app))
        assert "offline demo" in shown
        for word in (*DEMO_WORDS, *KEYS):
            assert word in shown, word
        path = config_path()
        assert str(path).startswith(str(tmp_path))
        sentence = f"Create {path} — start from `triptych config --example`"
        assert sentence in app.pane.transcript.query_one(Welcome).plain
        assert "".join(sentence.split()) in "".join(shown.split())  # on screen, however wrapped


async def test_it_says_which_keys_it_found_and_starts_on_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-SECRET-2-longer")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET-1")
    app = make_app(with_demo_providers(load_config(None, os.environ)), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = app.pane.transcript.query_one(Welcome).plain
        assert "Chatting with anthropic · claude-sonnet-4-5" in text
        assert "Keys found: ANTHROPIC_API_KEY, GROQ_API_KEY." in text  # in catalogue order
        assert "SECRET" not in screen_text(app)


async def test_on_the_demo_with_no_key_it_says_one_is_all_it_takes(tmp_path: Path) -> None:
    app = make_app(with_demo_providers(load_config(None, os.environ)), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = app.pane.transcript.query_one(Welcome).plain
        assert "offline demo" in text
        assert "No API key found. Export one (OPENAI_API_KEY, ANTHROPIC_API_KEY" in text


async def test_with_a_real_provider_it_names_it_and_no_demo_words(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    config = replace(fake_config(fake_provider), path=tmp_path / "config.toml")
    app = make_app(config, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        card = app.pane.transcript.query_one(Welcome)
        text = card.plain
        assert "fake · m-1" in text
        for key in KEYS:
            assert key in text
        assert "demo" not in text
        assert "think" not in text
        assert "Create " not in text


async def test_the_card_goes_with_the_first_prompt_and_returns_with_a_new_chat(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert len(app.pane.transcript.query(Welcome)) == 1
        await send(pilot, "hello")
        await wait_drawn(pilot)
        assert not app.pane.transcript.query(Welcome)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.pane.transcript.query(Welcome), what="the card")
        assert len(app.pane.transcript.query(Welcome)) == 1
        assert not app.pane.conversation.messages


async def test_the_card_follows_a_switch_of_provider_before_the_first_prompt(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    config = with_demo_providers(fake_config(fake_provider))
    app = make_app(config, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "fake · m-1" in app.pane.transcript.query_one(Welcome).plain
        app.switch_to(config.providers["demo"], "demo")
        await wait_until(
            pilot,
            lambda: "offline demo" in app.pane.transcript.query_one(Welcome).plain,
            what="the demo card",
        )
        assert len(app.pane.transcript.query(Welcome)) == 1
