"""What an `@path` sends, and only when asked: the file goes as the attachment and the prompt
names it by its name alone (no folder of the path, no `~`), in every format; a mention in
pasted text attaches nothing, however real the file; a mention whose file cannot be attached
keeps the whole prompt from being sent. The fake provider on loopback says what arrived."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from textual import events

from app.ui.app import TriptychApp
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.integration.test_attachments import PNG
from tests.ui.compare_helpers import all_drawn, answer, ask, config_for
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, wait_drawn
from tests.ui.test_attachments_ui import NOT_SENT, chips, notices, prompt, refused, type_in

FOLDER = "private-photos"  # a `-` is no base64 letter: found in a body, it is the path's
SECRET = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI-K7MDENG"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder with a picture, notes and a secret in it; the app starts elsewhere."""
    home = tmp_path / "home-of-me"
    (home / FOLDER).mkdir(parents=True)
    (home / FOLDER / "red.png").write_bytes(PNG)
    (home / FOLDER / "notes.md").write_bytes(b"hello notes\n")
    (home / FOLDER / "fake.png").write_bytes(b"just words, not a picture\n")
    (home / "secret.env").write_text(SECRET + "\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return home


def prompt_text(api: Api, body: dict[str, Any]) -> str:
    """The user's words in the request (the text part that is not a file)."""
    messages = body["input"] if api is Api.RESPONSES else body["messages"]
    (user,) = messages
    texts = [p["text"] for p in user["content"] if p["type"] in ("text", "input_text")]
    return next(t for t in texts if not t.startswith("<file "))


def images(api: Api, body: dict[str, Any]) -> list[str]:
    """The images' base64 data in the request."""
    messages = body["input"] if api is Api.RESPONSES else body["messages"]
    found = []
    for part in messages[0]["content"]:
        if part["type"] == "image":
            found.append(part["source"]["data"])
        elif part["type"] == "image_url":
            found.append(part["image_url"]["url"].split(",", 1)[1])
        elif part["type"] == "input_image":
            found.append(part["image_url"].split(",", 1)[1])
    return found


@pytest.mark.parametrize("api", list(Api))
@pytest.mark.parametrize("where", ["absolute", "home"])
async def test_the_provider_reads_the_files_name_and_never_its_folder(
    api: Api, where: str, home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    folder = str(home / FOLDER) if where == "absolute" else f"~/{FOLDER}"
    fake_provider.push(fake.stream(api, fake.Answer(text=("Red.",))))
    app = make_app(fake_config(fake_provider, api), tmp_path, history_file=tmp_path / "h.db")
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, f"what are @{folder}/red.png and @{folder}/notes.md, really?")
        await pilot.press("enter")
        await wait_drawn(pilot)
        body = fake_provider.last_request().json
        assert prompt_text(api, body) == "what are @red.png and @notes.md, really?"
        assert images(api, body) == [base64.b64encode(PNG).decode()]
        sent = json.dumps(body)
        for part in (str(home), FOLDER, "~", "home-of-me"):
            assert part not in sent, part
        shown = screen_text(app)
        assert "what are @red.png and @notes.md, really?" in shown  # as it was sent
        assert FOLDER not in shown


async def paste(app: TriptychApp, text: str) -> None:
    """As a terminal's bracketed paste arrives: to the app, which gives it to the focus."""
    prompt(app).focus()
    app.post_message(events.Paste(text))


async def test_pasted_text_attaches_nothing_and_is_sent_as_pasted(
    home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "look: ")
        await paste(app, "is @~/secret.env safe to share? and @~/secret.env")
        await pilot.pause()
        assert prompt(app).text == "look: is @~/secret.env safe to share? and @~/secret.env"
        assert chips(app) == []
        assert "Pasted text is sent as text: its @~/secret.env attaches nothing" in notices(app)[0]
        await type_in(pilot, " ")  # moved on from it: still nothing attached
        assert chips(app) == []
        await pilot.press("enter")
        await wait_drawn(pilot)
        (user,) = fake_provider.last_request().json["messages"]
        assert user["content"] == "look: is @~/secret.env safe to share? and @~/secret.env "
        assert SECRET not in json.dumps(fake_provider.last_request().json)


async def test_a_path_finished_by_a_paste_attaches_nothing(
    home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """`@~/sec` typed, `ret.env` pasted: the mention is the paste's, not a typed one."""
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "read @~/sec")
        await paste(app, "ret.env")
        await pilot.pause()
        await pilot.press("enter")
        await wait_drawn(pilot)
        (user,) = fake_provider.last_request().json["messages"]
        assert user["content"] == "read @~/secret.env"


async def test_a_typed_path_to_the_same_file_does_attach_it_as_a_chip_first(
    home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """The same mention typed (what pasting must not do): the chip shows before Enter."""
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "read @~/secret.env ")
        assert chips(app) == ["secret.env"]
        assert "secret.env · text" in screen_text(app)
    assert fake_provider.requests == []


@pytest.mark.parametrize("api", list(Api))
async def test_a_refused_file_keeps_the_prompt_and_sends_nothing_in_any_format(
    api: Api, home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """A text file named `.png`: marked, Enter refused with the draft kept, nothing sent."""
    app = make_app(fake_config(fake_provider, api), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        typed = f"what is @~/{FOLDER}/fake.png and @~/{FOLDER}/red.png"
        await type_in(pilot, typed)
        for _ in range(2):
            await pilot.press("enter")
            await pilot.pause()
            assert prompt(app).text == typed
            assert refused(app) == [f"✖ @~/{FOLDER}/fake.png: named .png but is text"]
        assert notices(app)[-1].endswith(NOT_SENT)
        assert chips(app) == []  # nothing attached from a prompt that was not sent
        await pilot.press(*" now")  # typing goes on at the end of the draft
        assert prompt(app).text == typed + " now"
    assert fake_provider.requests == []


async def test_every_pane_of_a_comparison_reads_the_name_alone(
    home: Path, fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api in Api:
        fakes[api].push(fake.stream(api, answer("Red.")))
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=(150, 40)) as pilot:
        await ask(pilot, f"what is @~/{FOLDER}/red.png")
        await all_drawn(pilot)
        for api in Api:
            body = fakes[api].last_request().json
            assert prompt_text(api, body) == "what is @red.png"
            assert images(api, body) == [base64.b64encode(PNG).decode()]
            assert FOLDER not in json.dumps(body)
