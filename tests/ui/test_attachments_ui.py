"""Attachments in the app (the screen's part): `@` and a path in the prompt
completes as you type (Textual's own suggestion: Right takes it) and is attached once the user
moves on; the palette's "Attach file…" opens a path field Textual's suggester completes.
Attached files show as chips under the prompt (pressing one removes it) and with the prompt in
the transcript, reopened too; each goes out in the format's own shape (the exact JSON the fake
server received). A file that is missing, a directory, too big or not what its name says is a
clear message that loses nothing typed; a provider that refuses images says so in the pane."""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input

from app.settings.config import AttachmentLimits
from app.ui.app import TriptychApp
from app.ui.screens.attaching import EDIT_HINT, AttachDialog
from app.ui.widgets.attachment_chips import AttachmentChips, Chip
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.user_message import UserMessage
from app.wire.engine import Api
from app.wire.events import EndOfStream, Finish, TextDelta, Usage
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.integration.test_attachments import PDF, PNG
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, wait_drawn, wait_until
from tests.ui.scripted import Step, scripted_app

NOTES = b"hello notes\n"
NOT_SENT = "Not sent: fix the file, or take the @ off its name to send it as text."
PROMPT = "compare @notes.md and @shot.png"
DATA_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()
NOTES_PART = '<file name="notes.md">\nhello notes\n</file>'
SENT: dict[Api, dict[str, Any]] = {
    Api.CHAT: {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": PROMPT},
                    {"type": "text", "text": NOTES_PART},
                    {"type": "image_url", "image_url": {"url": DATA_URL}},
                ],
            }
        ],
        "stream_options": {"include_usage": True},
    },
    Api.MESSAGES: {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": NOTES_PART},
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": base64.b64encode(PNG).decode(),
                        },
                    },
                    {"type": "text", "text": PROMPT},
                ],
            }
        ],
        "max_tokens": 4096,
    },
    Api.RESPONSES: {
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": PROMPT},
                    {"type": "input_text", "text": NOTES_PART},
                    {"type": "input_image", "image_url": DATA_URL},
                ],
            }
        ]
    },
}


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of files, the directory the app is started in."""
    folder = tmp_path / "work"
    (folder / "src").mkdir(parents=True)
    (folder / "notes.md").write_bytes(NOTES)
    (folder / "notes.txt").write_bytes(b"other\n")
    (folder / "shot.png").write_bytes(PNG)
    (folder / "fake.png").write_bytes(b"\x00\x01 not a picture at all")
    (folder / "paper.pdf").write_bytes(PDF)
    monkeypatch.chdir(folder)
    return folder


def chips(app: TriptychApp) -> list[str]:
    return app.chat_screen.query_one(AttachmentChips).names


def notices(app: TriptychApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def refused(app: TriptychApp) -> list[str]:
    """The mentions marked under the prompt as ones that cannot be attached."""
    return [str(m.render()) for m in app.screen.query("RefusedMention")]


def prompt(app: TriptychApp) -> PromptInput:
    return app.chat_screen.query_one(PromptInput)


async def type_in(pilot: Pilot[Any], text: str) -> None:
    prompt(pilot.app).focus()  # type: ignore[arg-type]
    await pilot.press(*text)
    await pilot.pause()


@pytest.mark.parametrize("api", list(Api))
async def test_mentions_become_chips_and_go_out_in_the_formats_shape(
    api: Api, files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(api, fake.Answer(text=("Seen.",))))
    history = tmp_path / "h.sqlite3"
    app = make_app(fake_config(fake_provider, api), tmp_path, history_file=history)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "compare @notes.md and")
        assert chips(app) == ["notes.md"]  # attached as the user moved on from it
        await type_in(pilot, " @shot.png")
        assert chips(app) == ["notes.md"]  # still being typed
        await pilot.press("enter")
        await wait_drawn(pilot)
        assert fake_provider.requests[-1].json == {"model": "m-1", **SENT[api], "stream": True}
        assert chips(app) == []  # sent with the prompt
        (shown,) = app.query(UserMessage)
        line = "attached: notes.md (text, 12 B)  ·  shot.png (PNG, 69 B)"
        assert [a.name for a in shown.attachments] == ["notes.md", "shot.png"]
        assert line in screen_text(app)
    again = make_app(fake_config(fake_provider, api), tmp_path, history_file=history)
    async with again.run_test(size=SIZE) as pilot:
        again.action_show_history()
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(again.query(UserMessage)), what="the reopened chat")
        await pilot.pause()
        assert line in screen_text(again)


async def test_at_completes_as_you_type(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "look at @no")
        field = prompt(app)
        assert field.suggestion == "tes."  # notes.md and notes.txt share it
        assert "@ notes.md  notes.txt · → completes" in screen_text(app)
        await pilot.press("right", "m", "d")
        assert field.text == "look at @notes.md"
        await type_in(pilot, " @s")
        assert field.suggestion == ""  # shot.png and the folder src/ share nothing more
        assert "@ shot.png  src/ · → completes" in screen_text(app)
        await type_in(pilot, "r")
        assert field.suggestion == "c/"
        await pilot.press("right")
        assert field.text == "look at @notes.md @src/"
        await type_in(pilot, " plain")
        assert field.suggestion == ""
        assert field.border_subtitle is None
    assert fake_provider.requests == []


async def test_a_chip_pressed_is_removed_and_not_attached_again(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "read @notes.md @shot.png ")
        assert chips(app) == ["notes.md", "shot.png"]
        await pilot.click(Chip)  # the first
        await pilot.pause()
        assert chips(app) == ["shot.png"]
        await pilot.press("enter")
        await wait_drawn(pilot)
        (user,) = fake_provider.requests[-1].json["messages"]
        assert user["content"] == [
            {"type": "text", "text": "read @notes.md @shot.png "},
            {"type": "image_url", "image_url": {"url": DATA_URL}},
        ]


async def test_a_chip_reached_with_tab_is_removed_with_delete(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "read @notes.md @shot.png ")
        await pilot.press("tab")
        assert isinstance(app.focused, Chip)
        assert app.focused.attachment.name == "notes.md"
        await pilot.press("delete")
        await pilot.pause()
        assert chips(app) == ["shot.png"]
        assert prompt(app).text == "read @notes.md @shot.png "
        assert notices(app) == ["Removed notes.md."]


BAD_MENTIONS = [
    ("a @src folder", "src: is a directory, not a file"),
    ("this @fake.png one", "fake.png: named .png but is not a PNG image"),
]


@pytest.mark.parametrize(("typed", "message"), BAD_MENTIONS)
async def test_a_mention_that_cannot_be_attached_is_said_once_marked_and_not_sent(
    typed: str, message: str, files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, typed)
        assert chips(app) == []
        said = notices(app)
        assert said == [f"{files}/{message}"]
        assert prompt(app).text == typed
        token, _, reason = message.partition(": ")
        assert refused(app) == [f"✖ @{token}: {reason}"]
        assert f"✖ @{token}: {reason}" in screen_text(app)
        await pilot.press("enter")  # refused while the mention is there: the draft kept
        await pilot.pause()
        assert notices(app)[-1] == f"{files}/{message}. {NOT_SENT}"
        assert prompt(app).text == typed
    assert fake_provider.requests == []


async def test_a_missing_file_named_on_send_keeps_the_prompt_and_sends_nothing(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Marked under the prompt; Enter, again and again, sends nothing until the mention is
    taken out; then the prompt goes with the file that was attached."""
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "summarise @notes.md and @nothere.md")
        for _ in range(2):
            await pilot.press("enter")
            await pilot.pause()
            assert prompt(app).text == "summarise @notes.md and @nothere.md"
            assert chips(app) == ["notes.md"]  # kept, not sent
            assert refused(app) == [f"✖ @nothere.md: no such file (in {files})"]
        assert notices(app) == [
            f"@nothere.md: no such file (in {files}). {NOT_SENT}",
            f"@nothere.md: no such file (in {files}). {NOT_SENT}",
        ]
        assert fake_provider.requests == []
        field = prompt(app)
        field.load_text("summarise @notes.md and nothere.md")  # the @ taken off
        await pilot.pause()
        assert refused(app) == []
        field.focus()
        await pilot.press("enter")
        await wait_drawn(pilot)
        (user,) = fake_provider.requests[-1].json["messages"]
        assert user["content"] == [
            {"type": "text", "text": "summarise @notes.md and nothere.md"},
            {"type": "text", "text": NOTES_PART},
        ]


async def test_a_mention_of_someone_is_plain_text(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "ask @someone about @dataclass")
        await pilot.press("enter")
        await wait_drawn(pilot)
        assert notices(app) == []
        (user,) = fake_provider.requests[-1].json["messages"]
        assert user["content"] == "ask @someone about @dataclass"


async def attach_dialog(pilot: Pilot[Any]) -> AttachDialog:
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    await pilot.press(*"attach file")
    await pilot.pause(0.4)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, AttachDialog), what="dialog")
    screen = pilot.app.screen
    assert isinstance(screen, AttachDialog)
    return screen


async def test_attach_file_from_the_palette_with_completion(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider, Api.MESSAGES), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "kept as typed")
        dialog = await attach_dialog(pilot)
        await pilot.press(*"pap")
        await pilot.pause(0.2)
        field = dialog.query_one(Input)
        assert field._suggestion == "paper.pdf"  # Textual's suggester
        await pilot.press("right", "enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, AttachDialog))
        assert chips(app) == ["paper.pdf"]
        assert prompt(app).text == "kept as typed"
        await pilot.pause()
        assert f"paper.pdf · PDF · {len(PDF)} B ✕" in screen_text(app)


BAD_FILES = [
    ("gone.png", "gone.png: no such file"),
    ("src", "src: is a directory, not a file"),
    ("fake.png", "fake.png: named .png but is not a PNG image"),
    ("big.txt", "big.txt: 2.0 MB, over the limit of 1.0 MB per file (max_file_mb in "
     "[providers.fake.attachments])"),
]  # fmt: skip


@pytest.mark.parametrize(("typed", "message"), BAD_FILES)
async def test_a_file_the_dialog_cannot_attach_is_said_there_with_the_path_kept(
    typed: str, message: str, files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    (files / "big.txt").write_bytes(b"a" * 2_000_000)
    config = fake_config(fake_provider)
    limits = AttachmentLimits(max_files=4, max_file_mb=1, max_total_mb=2)
    provider = replace(config.providers["fake"], attachments=limits)
    app = make_app(replace(config, providers={"fake": provider}), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await attach_dialog(pilot)
        dialog.query_one(Input).value = typed
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog
        assert dialog.error_text == f"{files / typed}{message.removeprefix(typed)}"
        assert dialog.query_one(Input).value == typed
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is not dialog)
        assert chips(app) == []


async def test_too_many_files_for_the_provider_keep_the_prompt_and_chips(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    config = fake_config(fake_provider)
    limits = AttachmentLimits(max_files=1, max_file_mb=1, max_total_mb=2)
    provider = replace(config.providers["fake"], attachments=limits)
    app = make_app(replace(config, providers={"fake": provider}), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "both @notes.md @shot.png")
        await pilot.press("enter")
        await pilot.pause()
        assert notices(app) == [
            "2 files, over fake's limit of 1 (max_files in [providers.fake.attachments])"
        ]
        assert prompt(app).text == "both @notes.md @shot.png"
        assert chips(app) == ["notes.md"]
    assert fake_provider.requests == []


async def test_a_provider_that_refuses_images_says_so_in_the_pane(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Its own message in the pane; then ctrl+l gives the prompt back with its files as chips,
    the image is removed, and the prompt goes again without it."""
    refusal = "This model does not support image inputs."
    fake_provider.push(
        fake.http_error(Api.CHAT, 400, "invalid_image", refusal), fake.stream(Api.CHAT)
    )
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_in(pilot, "what is in @shot.png and @notes.md")
        await pilot.press("enter")
        await wait_drawn(pilot)
        assert refusal in screen_text(app)
        assert "attached: shot.png (PNG, 69 B)  ·  notes.md (text, 12 B)" in screen_text(app)
        assert notices(app)[-1] == EDIT_HINT  # how to send it again without the image
        assert chips(app) == []
        await type_in(pilot, "@notes.txt draft ")
        assert chips(app) == ["notes.txt"]
        prompt(app).clear()  # the text typed is set aside; its chip stays
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert prompt(app).text == "what is in @shot.png and @notes.md"
        assert chips(app) == ["shot.png", "notes.md"]  # the last prompt's, to edit
        await pilot.press("escape")  # cancel: the chips there were come back
        await pilot.pause()
        assert chips(app) == ["notes.txt"]
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.click(Chip)  # the image
        await pilot.pause()
        assert chips(app) == ["notes.md"]
        prompt(app).focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2)
        await wait_drawn(pilot)
        (user,) = fake_provider.requests[-1].json["messages"]
        assert user["content"] == [
            {"type": "text", "text": "what is in @shot.png and @notes.md"},
            {"type": "text", "text": NOTES_PART},
        ]
        assert refusal not in screen_text(app)  # the refused exchange was replaced
        assert chips(app) == ["notes.txt"]  # the chips there were before the edit, back


SNAP_ANSWER = (
    Step(0.5, (TextDelta("The notes say hello; the picture is a single green pixel."),)),
    Step(0.8, (Usage(40, 14), Finish("stop"), EndOfStream())),
)


def test_snapshot_of_the_chips_and_the_attached_prompt(
    snap_compare: Any, files: Path, tmp_path: Path
) -> None:
    """A prompt sent with two files (named under it in the transcript), the next one being
    typed with a chip under the prompt and `@no` completing to `notes.`."""
    app, streamer = scripted_app(tmp_path, SNAP_ANSWER)

    async def run_before(pilot: Pilot[Any]) -> None:
        field = pilot.app.screen.query_one(PromptInput)
        field.cursor_blink = False
        await type_in(pilot, "what are @notes.md and @shot.png")
        await pilot.press("enter")
        await wait_until(pilot, streamer.played.is_set, what="the script")
        await wait_until(pilot, lambda: not pilot.app.render_clock.live)
        await type_in(pilot, "and @paper.pdf then @no")
        await pilot.pause(0.15)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
