"""Branches in a comparison ("each pane keeps its own branch"), over one fake
server per pane with the history in a temp dir: with a pane selected, Alt+Up / Alt+Down select
its messages, `e` edits a prompt and sends it in that pane only, `r` regenerates its answer,
`[` / `]` switch its branches, the pane shows `‹ 2/2 ›`, each server receives its pane's own
chosen path, and a reopened comparison shows each pane's chosen branch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.pilot import Pilot

from app.ui.app import TriptychApp
from app.ui.screens.batch import BatchScreen
from app.ui.screens.batch_answers import BatchAnswers
from app.ui.screens.branching import EDIT_TITLE, STILL_ANSWERING
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.branch_marker import BranchMarker
from app.ui.widgets.compare_pane import ComparePane
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.user_message import UserMessage
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import (
    PLAIN,
    answer,
    ask,
    compare_screen,
    config_for,
    load_last,
    run_palette,
)
from tests.ui.helpers import footer_text, make_app, screen_text, wait_until
from tests.ui.test_batch_screen import app_for, job_for, push_two
from tests.ui.test_compare_blind import SECRETS, blind_app

WIDE = (160, 40)
LOADED = 20.0  # seconds a wait may take on a loaded machine (each step is far faster alone)
TWO = ["cc", "am"]  # Chat Completions in pane 1, Messages in pane 2


def reply(api: Api, text: str) -> fake.Reply:
    return fake.stream(api, answer(text))


def prompts(pane: ComparePane) -> list[str]:
    return [m.text for m in pane.transcript.query(UserMessage)]


def answers(pane: ComparePane) -> list[str]:
    return [v.turn.text for v in pane.transcript.query(AssistantTurn)]


def markers(pane: ComparePane) -> list[str]:
    return [f"{m.number}/{m.count}" for m in pane.transcript.query(BranchMarker)]


def selected(pane: ComparePane) -> list[str]:
    found = pane.transcript.query(".-selected")
    texts = [w.text for w in found if isinstance(w, UserMessage)]
    return texts + [w.turn.text for w in found if isinstance(w, AssistantTurn)]


def notices(app: TriptychApp) -> list[str]:
    return [n.message for n in app._notifications]


def sent(server: FakeProvider) -> list[dict[str, Any]]:
    """The messages of the server's last request, as JSON (Chat Completions and Messages)."""
    messages: list[dict[str, Any]] = server.requests[-1].json["messages"]
    return messages


async def until(pilot: Pilot[Any], predicate: Callable[[], object], what: str = "") -> None:
    await wait_until(pilot, predicate, LOADED, what)


async def drawn(pilot: Pilot[Any], screen: CompareScreen) -> None:
    await until(
        pilot,
        lambda: all(p.current is not None and p.current.drawn for p in screen.panes),
        "every pane drawn",
    )
    await pilot.pause()


async def two_rounds(pilot: Pilot[Any], fakes: dict[Api, FakeProvider]) -> CompareScreen:
    screen = compare_screen(pilot.app)  # type: ignore[arg-type]
    for text in ("first", "teh typo"):
        await ask(pilot, text)
        await until(pilot, lambda: screen.busy == [], "answered")
        await drawn(pilot, screen)
    return screen


def queue_two_rounds(fakes: dict[Api, FakeProvider]) -> None:
    for api, name in ((Api.CHAT, "cc"), (Api.MESSAGES, "am")):
        fakes[api].push(reply(api, f"{name} one"), reply(api, f"{name} typo"))


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def cc_said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def am_user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def am_said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


async def test_an_edit_in_one_pane_is_sent_there_only_and_each_pane_keeps_its_branch(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    cc, am = fakes[Api.CHAT], fakes[Api.MESSAGES]
    queue_two_rounds(fakes)
    cc.push(reply(Api.CHAT, "cc fix"), reply(Api.CHAT, "cc three"))
    am.push(reply(Api.MESSAGES, "am three"))
    app = make_app(config_for(fakes), tmp_path, history_file=db, compare=TWO)
    async with app.run_test(size=WIDE) as pilot:
        screen = await two_rounds(pilot, fakes)
        left, right = screen.panes
        prompt = screen.query_one("#prompt", PromptInput)
        prompt.load_text("a draft")
        await pilot.press("alt+up")
        assert selected(left) == ["cc typo"]
        assert "regenerate" in footer_text(app)
        await pilot.press("alt+up")
        assert selected(left) == ["teh typo"]
        await pilot.press("e")
        await until(pilot, lambda: prompt.text == "teh typo", "the prompt in the input")
        assert prompt.border_title == EDIT_TITLE
        prompt.load_text("the fix")
        await pilot.press("enter")
        await until(pilot, lambda: len(cc.requests) == 3, "pane 1's request")
        await drawn(pilot, screen)
        assert sent(cc) == [user("first"), cc_said("cc one"), user("the fix")]
        assert len(am.requests) == 2  # the other pane is untouched
        assert prompt.text == "a draft"  # given back
        assert (prompts(left), answers(left)) == (["first", "the fix"], ["cc one", "cc fix"])
        assert markers(left) == ["2/2"]
        assert (prompts(right), answers(right)) == (["first", "teh typo"], ["am one", "am typo"])
        assert markers(right) == []

        # A shared prompt follows each pane's own branch.
        prompt.clear()
        await ask(pilot, "third")
        await until(pilot, lambda: len(am.requests) == 3 and len(cc.requests) == 4, "both")
        await drawn(pilot, screen)
        assert sent(cc) == [
            user("first"), cc_said("cc one"), user("the fix"), cc_said("cc fix"), user("third")
        ]  # fmt: skip
        assert sent(am) == [
            am_user("first"), am_said("am one"), am_user("teh typo"), am_said("am typo"),
            am_user("third"),
        ]  # fmt: skip

        # [ in pane 1 goes back to its first branch; pane 2 keeps its own.
        await pilot.press("alt+up", "alt+up", "alt+up", "alt+up")
        assert selected(left) == ["the fix"]
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: prompts(left) == ["first", "teh typo"], "the first branch")
        assert answers(left) == ["cc one", "cc typo"]
        assert markers(left) == ["1/2"]
        assert selected(left) == ["teh typo"]
        assert "‹ 1/2 ›  [ ] switch branch" in screen_text(app)
        assert prompts(right) == ["first", "teh typo", "third"]
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: prompts(left) == ["first", "the fix", "third"], "back")
        assert answers(left) == ["cc one", "cc fix", "cc three"]
        await pilot.press("left_square_bracket")  # left on the first branch
        await until(pilot, lambda: prompts(left) == ["first", "teh typo"], "the first again")
        await pilot.press("escape")
        assert app.focused is prompt

    stored = load_last(db)
    assert [m.text for m in stored.pane_paths[0]] == ["first", "cc one", "teh typo", "cc typo"]
    assert [m.text for m in stored.pane_paths[1]][-2:] == ["third", "am three"]

    # Reopened, each pane shows its chosen branch, with its marker.
    app = make_app(config_for(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "reopened")
        screen = compare_screen(app)
        left, right = screen.panes
        await until(pilot, lambda: answers(right)[-1:] == ["am three"], "the old answers")
        assert prompts(left) == ["first", "teh typo"]
        assert markers(left) == ["1/2"]
        assert prompts(right) == ["first", "teh typo", "third"]
        assert markers(right) == []


async def test_r_regenerates_the_selected_panes_answer_only(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    cc, am = fakes[Api.CHAT], fakes[Api.MESSAGES]
    queue_two_rounds(fakes)
    am.push(reply(Api.MESSAGES, "am again"))
    app = make_app(config_for(fakes), tmp_path, history_file=tmp_path / "h.db", compare=TWO)
    async with app.run_test(size=WIDE) as pilot:
        screen = await two_rounds(pilot, fakes)
        left, right = screen.panes
        await pilot.press("alt+right")  # pane 2
        await pilot.press("alt+up")
        assert selected(right) == ["am typo"]
        assert selected(left) == []
        await pilot.press("r")
        await until(pilot, lambda: len(am.requests) == 3, "pane 2's request")
        await drawn(pilot, screen)
        assert sent(am) == [am_user("first"), am_said("am one"), am_user("teh typo")]
        assert len(cc.requests) == 2
        assert answers(right) == ["am one", "am again"]
        assert markers(right) == ["2/2"]
        assert answers(left) == ["cc one", "cc typo"]
        # Selecting pane 1 lets go of pane 2's selection.
        await pilot.press("alt+up")
        assert selected(right) == ["am again"]
        await pilot.press("alt+left")
        assert selected(right) == []
    stored = load_last(tmp_path / "h.db")
    assert [m.text for m in stored.pane_paths[1]][-1] == "am again"
    assert len(stored.pane_paths[1][-1].siblings) == 2
    assert [m.text for m in stored.pane_paths[0]][-1] == "cc typo"


async def test_a_click_selects_a_message_in_its_pane(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    queue_two_rounds(fakes)
    app = make_app(config_for(fakes), tmp_path, history_file=tmp_path / "h.db", compare=TWO)
    async with app.run_test(size=WIDE) as pilot:
        screen = await two_rounds(pilot, fakes)
        left, right = screen.panes
        target = right.transcript.query(UserMessage).first()
        await pilot.click(target)
        await pilot.pause()
        assert selected(right) == ["first"]
        assert screen.selected_pane is right
        assert selected(left) == []


async def test_an_edit_or_a_switch_in_a_streaming_pane_is_refused(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    cc, am = fakes[Api.CHAT], fakes[Api.MESSAGES]
    queue_two_rounds(fakes)
    cc.push(fake.paced_forever(Api.CHAT, PLAIN))
    am.push(reply(Api.MESSAGES, "am three"))
    app = make_app(config_for(fakes), tmp_path, history_file=tmp_path / "h.db", compare=TWO)
    async with app.run_test(size=WIDE) as pilot:
        screen = await two_rounds(pilot, fakes)
        left, _right = screen.panes
        await ask(pilot, "a long one")
        await until(pilot, lambda: left.turn is not None and "word3" in left.turn.text, "words")
        prompt = screen.query_one("#prompt", PromptInput)
        prompt.load_text("typed meanwhile")
        await pilot.press("alt+up", "alt+up")
        assert selected(left) == ["a long one"]
        await pilot.press("e")
        await until(pilot, lambda: notices(app)[-1:] == [STILL_ANSWERING.format(what="edit")])
        await pilot.press("left_square_bracket")
        refused = STILL_ANSWERING.format(what="switch branches")
        await until(pilot, lambda: notices(app)[-1:] == [refused], "the notice")
        assert prompt.text == "typed meanwhile"
        assert prompts(left) == ["first", "teh typo", "a long one"]
        assert len(cc.requests) == 3
        await pilot.press("escape")  # back to the prompt; the stream goes on
        assert app.focused is prompt
        assert left.streaming
        await pilot.press("escape")  # now Esc stops every stream
        await until(pilot, lambda: not left.streaming, "the stop")


async def test_a_branch_in_a_blind_comparison_names_nobody(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for n, api in enumerate((Api.CHAT, Api.MESSAGES, Api.RESPONSES), 1):
        fakes[api].push(fake.stream(api, answer(*(["word "] * n))))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, answer("again ", "and again")))
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=(170, 40)) as pilot:
        screen = compare_screen(app)
        await ask(pilot, "which one")
        await until(pilot, lambda: screen.vote_bar.asking, "the vote bar")
        pane = next(p for p in screen.panes if p.provider.name == "quokka")
        screen.action_select(screen.panes.index(pane) - screen.selected)
        await pilot.press("alt+up")
        assert len(selected(pane)) == 1
        await pilot.press("r")
        await until(pilot, lambda: len(fakes[Api.MESSAGES].requests) == 2, "the regeneration")
        await until(pilot, lambda: pane.current is not None and pane.current.drawn, "drawn")
        await pilot.press("alt+up")
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: markers(pane) == ["1/2"], "the first answer again")
        await pilot.pause()
        seen = screen_text(app) + "\n".join(notices(app))
        assert [s for s in SECRETS if s in seen] == []
        assert pane.letter is not None
        assert screen.hidden


async def test_a_batch_prompt_side_by_side_does_not_branch(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    push_two(fakes)
    app = app_for(fakes, tmp_path, batch=job_for(fakes, tmp_path))
    async with app.run_test(size=(200, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, BatchScreen), "the table")
        table = app.screen
        assert isinstance(table, BatchScreen)
        await until(pilot, lambda: not table.running, "the run's end")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BatchAnswers), "the answers")
        answers = app.screen
        assert isinstance(answers, BatchAnswers)
        await until(pilot, lambda: all(p.current is not None for p in answers.panes), "stored")
        await pilot.press("alt+up")
        await pilot.pause()
        assert all(selected(p) == [] for p in answers.panes)
        assert "regenerate" not in footer_text(app)
        await pilot.press("escape")  # back to the table, as before
        await until(pilot, lambda: app.screen is table, "back to the table")


async def test_a_pane_added_carries_on_the_branch_its_source_showed(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    cc, am, rs = fakes[Api.CHAT], fakes[Api.MESSAGES], fakes[Api.RESPONSES]
    queue_two_rounds(fakes)
    cc.push(reply(Api.CHAT, "cc fix"), reply(Api.CHAT, "cc three"))
    am.push(reply(Api.MESSAGES, "am three"))
    rs.push(fake.json_answer({"data": [{"id": "rs-model"}]}), reply(Api.RESPONSES, "rs three"))
    app = make_app(config_for(fakes), tmp_path, history_file=db, compare=TWO)
    async with app.run_test(size=WIDE) as pilot:
        screen = await two_rounds(pilot, fakes)
        left = screen.panes[0]
        prompt = screen.query_one("#prompt", PromptInput)
        await pilot.press("alt+up", "alt+up", "e")
        await until(pilot, lambda: prompt.text == "teh typo", "the prompt in the input")
        prompt.load_text("the fix")
        await pilot.press("enter")
        await until(pilot, lambda: len(cc.requests) == 3, "pane 1's request")
        await drawn(pilot, screen)
        await pilot.press("alt+up", "alt+up", "left_square_bracket")  # back to "teh typo"
        await until(pilot, lambda: prompts(left) == ["first", "teh typo"], "the first branch")
        await pilot.press("escape")
        await run_palette(pilot, "Add pane", "rs")
        await until(pilot, lambda: len(rs.requests) == 1, "its models")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the models")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: len(screen.panes) == 3, "a third pane")
        added = screen.panes[2]
        assert [m.text for m in added.conversation.messages] == [
            "first", "cc one", "teh typo", "cc typo"
        ]  # fmt: skip
        screen.action_select(-2)  # pane 1 again, which now switches to its other branch
        await pilot.press("alt+up", "alt+up", "right_square_bracket")
        await until(pilot, lambda: prompts(left) == ["first", "the fix"], "the second branch")
        await pilot.press("escape")
        await ask(pilot, "third")
        await until(pilot, lambda: len(rs.requests) == 2 and len(cc.requests) == 4, "asked")
        await drawn(pilot, screen)
        body = rs.requests[-1].body.decode()
        assert "teh typo" in body
        assert "the fix" not in body
        assert sent(cc)[2] == user("the fix")
    stored = load_last(db)
    assert [m.text for m in stored.pane_paths[2]] == [
        "first", "cc one", "teh typo", "cc typo", "third", "rs three"
    ]  # fmt: skip
    assert [m.text for m in stored.pane_paths[0]][2] == "the fix"


async def test_a_new_comparison_ends_a_panes_edit_and_keeps_what_was_typed(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    queue_two_rounds(fakes)
    app = make_app(config_for(fakes), tmp_path, history_file=tmp_path / "h.db", compare=TWO)
    async with app.run_test(size=WIDE) as pilot:
        screen = await two_rounds(pilot, fakes)
        prompt = screen.query_one("#prompt", PromptInput)
        await pilot.press("alt+up", "alt+up", "e")
        await until(pilot, lambda: prompt.border_title == EDIT_TITLE, "the edit")
        await pilot.press("ctrl+n")
        await until(pilot, lambda: prompt.border_title is None, "the edit ended")
        assert prompt.text == "teh typo"  # left in the input, as a new prompt
        assert all(prompts(p) == [] for p in screen.panes)
        assert "cancel edit" not in footer_text(app)
