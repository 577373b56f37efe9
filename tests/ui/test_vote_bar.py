"""The vote bar: it asks without taking the focus, its plain keys vote only once it has the
focus, Esc there skips, other keys do nothing; a cast vote shows with its undo."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import TextArea

from app.compare.blind import BlindRound, Verdict
from app.ui.widgets.vote_bar import VoteBar


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.verdicts: list[Verdict] = []
        self.undone = 0

    def compose(self) -> ComposeResult:
        yield VoteBar()
        yield TextArea(id="typing")

    def on_vote_bar_voted(self, message: VoteBar.Voted) -> None:
        self.verdicts.append(message.verdict)

    def on_vote_bar_undo_wanted(self, message: VoteBar.UndoWanted) -> None:
        self.undone += 1


async def test_the_bar_asks_without_the_focus_and_votes_only_once_focused() -> None:
    app = Host()
    async with app.run_test(size=(120, 8)) as pilot:
        bar = app.query_one(VoteBar)
        typing = app.query_one("#typing", TextArea)
        typing.focus()
        assert not bar.display
        bar.ask(BlindRound((2, 0, 1)))
        await pilot.pause()
        assert bar.display
        assert app.focused is typing  # asking takes nothing from whoever types
        assert str(bar.render()).startswith(
            "Which is better?  alt+1 A  alt+2 B  alt+3 C  ·  alt+= tie  ·  alt+x all bad"
        )
        await pilot.press("2", "x", "=")
        assert app.verdicts == []
        assert typing.text == "2x="

        bar.focus()
        await pilot.pause()
        assert str(bar.render()).startswith("Which is better?  1 A  2 B  3 C  ·  = tie")
        await pilot.press("q", "4")  # not a choice here: nothing happens
        assert app.verdicts == []
        await pilot.press("2")
        assert app.verdicts == [Verdict("winner", 0)]  # B was pane 0
        assert not bar.asking
        await pilot.pause()
        assert not bar.display
        for key, outcome in (("equals_sign", "tie"), ("x", "all_bad"), ("escape", "skipped")):
            bar.ask(BlindRound((0, 1)))
            bar.focus()
            await pilot.press(key)
            assert app.verdicts[-1].outcome == outcome
            assert app.verdicts[-1].winner is None


async def test_a_cast_vote_shows_with_its_undo() -> None:
    app = Host()
    async with app.run_test(size=(120, 8)) as pilot:
        bar = app.query_one(VoteBar)
        bar.cast("all bad")
        await pilot.pause()
        assert bar.display
        assert str(bar.render()).startswith("vote: all bad · undo")
        assert bar.undoable
        bar.focus()
        await pilot.press("u")
        assert app.undone == 1
        await pilot.click(VoteBar, offset=(1 + len("vote: all bad · ") + 1, 0))  # on "undo"
        await pilot.pause()
        assert app.undone == 2
        bar.done()
        await pilot.press("u")  # nothing to undo any more
        assert app.undone == 2
