"""Editing an earlier prompt as a branch (`e`) gives back its files as chips, as Ctrl+L does
for the last one: one can be removed before the branch is sent, and
the branch goes out with the chips left (the exact JSON the fake server received); Esc, or
sending, gives back the chips the draft had."""

from __future__ import annotations

from pathlib import Path

from app.ui.widgets.attachment_chips import Chip
from app.ui.widgets.prompt import PromptInput
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, wait_drawn
from tests.ui.test_attachments_ui import NOTES_PART, chips, files, type_in
from tests.ui.test_branches import LOADED, markers, prompts, selected, settle, until

__all__ = ["files"]  # the fixture, used by name

ASKED = "what is in @shot.png and @notes.md"


def said(text: str) -> fake.Reply:
    return fake.stream(Api.CHAT, fake.Answer(text=(text,)))


async def test_e_gives_back_the_prompts_files_and_the_branch_sends_the_chips_left(
    files: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(said("An image and notes."), said("Notes only."))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=tmp_path / "h.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.screen.query_one("#prompt", PromptInput)
        await type_in(pilot, ASKED)
        await pilot.press("enter")
        await wait_drawn(pilot, LOADED)
        await type_in(pilot, "a draft @notes.txt ")
        assert chips(app) == ["notes.txt"]
        await pilot.press("alt+up", "alt+up")
        assert selected(app) == [ASKED]
        await pilot.press("e")
        await until(pilot, lambda: chips(app) == ["shot.png", "notes.md"], what="its files")
        assert prompt.text == ASKED
        await pilot.press("escape")  # cancelled: the draft and its chip come back
        await until(pilot, lambda: chips(app) == ["notes.txt"], what="the draft's chips")
        assert prompt.text == "a draft @notes.txt "
        await pilot.press("alt+up", "alt+up", "e")
        await until(pilot, lambda: chips(app) == ["shot.png", "notes.md"], what="its files")
        shot = next(c for c in app.screen.query(Chip) if c.attachment.name == "shot.png")
        shot.press()  # the image is left out
        await until(pilot, lambda: chips(app) == ["notes.md"], what="the image removed")
        prompt.focus()
        await pilot.press("enter")
        await settle(pilot, fake_provider, 2)
        assert fake_provider.requests[-1].json == {
            "model": "m-1",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": ASKED},
                        {"type": "text", "text": NOTES_PART},
                    ],
                }
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        assert prompts(app) == [ASKED]
        assert markers(app) == ["2/2"]  # a branch beside the original, which keeps its files
        assert chips(app) == ["notes.txt"]  # the draft is back with its chip
        assert prompt.text == "a draft @notes.txt "
