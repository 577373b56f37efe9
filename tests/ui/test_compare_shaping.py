"""The comparison shapes its requests as the chat does: the parameters
panel (F3), "System prompt…" and attachments (`@path`, chips) apply to every pane, each in its
own format's fields (the exact JSON each fake server received); a knob a pane's format lacks
is said for that pane and the others still send it; the header names the system prompt; and a
blind comparison names no provider anywhere in it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Input

from app.settings.config import AttachmentLimits
from app.ui.app import TriptychApp
from app.ui.screens.compare import CompareScreen
from app.ui.screens.compare_shaping import HIDDEN_LIMIT, NOTE, TITLE
from app.ui.screens.parameters import ParametersScreen
from app.ui.widgets.attachment_chips import AttachmentChips
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import all_drawn, answer, ask, compare_screen, config_for
from tests.ui.helpers import make_app, screen_text, wait_until
from tests.ui.test_attachments_ui import NOTES_PART, files
from tests.ui.test_compare_blind import blind_app, leaks, push_answers
from tests.ui.test_parameters_panel import fill, open_panel
from tests.ui.test_system_prompt_picker import PRESETS, pick

__all__ = ["files"]  # the fixture, used by name

WIDE = (160, 48)
ASKED = "read @notes.md"
TERSE = "Answer in one line."


def notices(app: TriptychApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def chips(app: TriptychApp) -> list[str]:
    return app.screen.query_one(AttachmentChips).names


def push_all(fakes: dict[Api, FakeProvider]) -> None:
    for api in Api:
        fakes[api].push(fake.stream(api, answer("Done.")))


async def test_the_panels_values_go_to_every_pane_in_its_own_format(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        panel = await open_panel(pilot)
        assert (panel.title_text, panel.note_text) == (TITLE, NOTE)
        await fill(pilot, panel, {"temperature": "0.5", "seed": "7"}, "")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, ParametersScreen))
        said = notices(app)[-1]
        assert said.splitlines() == [
            "Parameters for every pane's next requests: temp 0.5 · seed 7",
            "pane 2 (am): seed left out (not taken by its format)",
            "pane 3 (rs): seed left out (not taken by its format)",
        ]
        push_all(fakes)
        await ask(pilot, "q")
        await all_drawn(pilot)
        assert fakes[Api.CHAT].requests[-1].json == {
            "model": "cc-model",
            "messages": [{"role": "user", "content": "q"}],
            "temperature": 0.5,
            "seed": 7,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        assert fakes[Api.MESSAGES].requests[-1].json == {
            "model": "am-model",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}],
            "max_tokens": 4096,
            "temperature": 0.5,
            "stream": True,
        }
        assert fakes[Api.RESPONSES].requests[-1].json == {
            "model": "rs-model",
            "input": [{"type": "message", "role": "user", "content": "q"}],
            "temperature": 0.5,
            "stream": True,
        }
        panel = await open_panel(pilot)  # the panel shows what was set, for every pane
        assert panel.query_one("#seed", Input).value == "7"


async def test_the_system_prompt_and_a_file_go_to_every_pane(
    files: Path, fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    config = replace(config_for(fakes), prompts=PRESETS)
    app = make_app(config, tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await pick(pilot, "terse")
        screen = compare_screen(app)
        await wait_until(pilot, lambda: "system: terse" in screen.sub_title, what="the header")
        screen.prompt.focus()
        await pilot.press(*ASKED, "space")
        await wait_until(pilot, lambda: chips(app) == ["notes.md"], what="the chip")
        push_all(fakes)
        await pilot.press("enter")
        await all_drawn(pilot)
        assert chips(app) == []
        assert fakes[Api.CHAT].requests[-1].json["messages"] == [
            {"role": "system", "content": TERSE},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": ASKED + " "},
                    {"type": "text", "text": NOTES_PART},
                ],
            },
        ]
        messages = fakes[Api.MESSAGES].requests[-1].json
        assert messages["system"] == TERSE
        assert messages["messages"] == [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": NOTES_PART},
                    {"type": "text", "text": ASKED + " "},
                ],
            }
        ]
        responses = fakes[Api.RESPONSES].requests[-1].json
        assert responses["instructions"] == TERSE
        assert responses["input"] == [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": ASKED + " "},
                    {"type": "input_text", "text": NOTES_PART},
                ],
            }
        ]


async def test_a_blind_comparison_names_no_provider_in_the_panel_or_its_messages(
    files: Path, fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=WIDE) as pilot:
        push_answers(fakes)
        await ask(pilot, "first")
        await all_drawn(pilot)
        screen = compare_screen(app)
        assert screen.hidden
        await open_panel(pilot)
        shown = screen_text(app)
        assert leaks(shown) == []
        assert "4096" not in shown  # no pane's own default
        panel = app.screen
        assert isinstance(panel, ParametersScreen)
        await fill(pilot, panel, {"seed": "7"}, "")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, ParametersScreen))
        said = notices(app)[-1]
        assert leaks(said) == []
        assert "seed left out" in said
        none = AttachmentLimits(max_files=0, max_file_mb=1, max_total_mb=1)
        for pane in screen.panes:  # no file may go: the message would name whose limit
            pane.provider = replace(pane.provider, attachments=none)
        screen.prompt.focus()
        await pilot.press(*"see @notes.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: HIDDEN_LIMIT in notices(app), what="the limit")
        assert screen.prompt.text == "see @notes.md"  # nothing typed is lost
        assert leaks("\n".join(notices(app))) == []
        tiny = AttachmentLimits(max_files=4, max_file_mb=0.000001, max_total_mb=1)
        for pane in screen.panes:  # too big for every pane: the mark under the prompt too
            pane.provider = replace(pane.provider, attachments=tiny)
        screen.prompt.focus()
        await pilot.press("end", "space")
        await wait_until(pilot, lambda: "✖ @notes.md" in screen_text(app), what="the mark")
        assert f"✖ @notes.md: {HIDDEN_LIMIT}" in screen_text(app)
        assert leaks(screen_text(app)) == []


async def test_e_in_a_pane_gives_back_the_prompts_file_and_sends_the_chips_left(
    files: Path, fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """A pane's prompt edited as its own branch comes back with its files as chips, as the
    chat's does; removed, the file is not sent with the edit (to that pane only)."""
    config = config_for(fakes)
    app = make_app(config, tmp_path, history_file=tmp_path / "h.sqlite3", compare=["cc", "am"])
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        screen.prompt.focus()
        for api in (Api.CHAT, Api.MESSAGES):
            fakes[api].push(fake.stream(api, answer("Read.")), fake.stream(api, answer("Ok.")))
        await pilot.press(*ASKED, "space")
        await wait_until(pilot, lambda: chips(app) == ["notes.md"], what="the chip")
        await pilot.press("enter")
        await all_drawn(pilot)
        await pilot.press("alt+up", "alt+up", "e")  # the first pane's prompt
        await wait_until(pilot, lambda: chips(app) == ["notes.md"], what="its file back")
        assert screen.prompt.text == ASKED + " "
        chip = screen.query_one(AttachmentChips).children[0]
        assert isinstance(chip, Button)
        chip.press()
        await wait_until(pilot, lambda: chips(app) == [], what="the file removed")
        screen.prompt.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fakes[Api.CHAT].requests) == 2, what="the edit")
        assert fakes[Api.CHAT].requests[-1].json["messages"] == [
            {"role": "user", "content": ASKED + " "}
        ]
        assert len(fakes[Api.MESSAGES].requests) == 1  # the other pane is untouched


def test_snapshot_of_a_comparison_with_its_system_prompt_a_chip_and_a_knob_left_out(
    snap_compare: Any, files: Path, fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """The header names the system prompt, the file is a chip under the prompt, and the notice
    says which panes leave the seed out."""
    config = replace(config_for(fakes), prompts=PRESETS)
    app = make_app(config, tmp_path, compare=["cc", "am", "rs"])

    async def run_before(pilot: Pilot[Any]) -> None:
        await pick(pilot, "terse")
        screen = compare_screen(app)
        await wait_until(pilot, lambda: "system: terse" in screen.sub_title, what="the header")
        panel = await open_panel(pilot)
        await fill(pilot, panel, {"seed": "7"}, "")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, ParametersScreen))
        screen.prompt.focus()
        screen.prompt.cursor_blink = False
        await pilot.press(*ASKED, "space")
        await wait_until(pilot, lambda: chips(app) == ["notes.md"], what="the chip")
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=(120, 30), run_before=run_before)


async def test_a_reopened_comparison_sends_its_parameters_to_each_pane_in_its_format(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "h.sqlite3"
    config = config_for(fakes)
    app = make_app(config, tmp_path, history_file=db, compare=["cc", "am"])
    async with app.run_test(size=WIDE) as pilot:
        panel = await open_panel(pilot)
        await fill(pilot, panel, {"seed": "7", "max_output_tokens": "300"}, "")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not isinstance(app.screen, ParametersScreen))
        for api in (Api.CHAT, Api.MESSAGES):
            fakes[api].push(fake.stream(api, answer("One.")))
        await ask(pilot, "q")
        await all_drawn(pilot)
    again = make_app(config, tmp_path, history_file=db)
    async with again.run_test(size=WIDE) as pilot:
        again.action_show_history()
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(again.screen, CompareScreen), what="reopened")
        await all_drawn(pilot)
        panel = await open_panel(pilot)
        assert panel.query_one("#seed", Input).value == "7"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(again.screen, ParametersScreen))
        for api in (Api.CHAT, Api.MESSAGES):
            fakes[api].push(fake.stream(api, answer("Two.")))
        await ask(pilot, "again")
        await wait_until(
            pilot, lambda: all(len(fakes[a].requests) == 2 for a in (Api.CHAT, Api.MESSAGES))
        )
        cc, am = fakes[Api.CHAT].requests[-1].json, fakes[Api.MESSAGES].requests[-1].json
        assert (cc["seed"], cc["max_tokens"]) == (7, 300)
        assert am == {
            "model": "am-model",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "q"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "One."}]},
                {"role": "user", "content": [{"type": "text", "text": "again"}]},
            ],
            "max_tokens": 300,
            "stream": True,
        }
