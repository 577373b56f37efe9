"""The vote bar: asked with focus, keys vote, Esc skips, other keys do nothing."""

from __future__ import annotations

from textual.app import App, ComposeResult

from app.compare.blind import BlindRound, Verdict
from app.ui.widgets.vote_bar import VoteBar


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.verdicts: list[Verdict] = []

    def compose(self) -> ComposeResult:
        yield VoteBar()

    def on_vote_bar_voted(self, message: VoteBar.Voted) -> None:
        self.verdicts.append(message.verdict)


async def test_keys_vote_and_the_bar_goes() -> None:
    app = Host()
    async with app.run_test(size=(90, 5)) as pilot:
        bar = app.query_one(VoteBar)
        assert not bar.display
        bar.ask(BlindRound((2, 0, 1)))
        await pilot.pause()
        assert bar.display
        assert app.focused is bar
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
            await pilot.press(key)
            assert app.verdicts[-1].outcome == outcome
            assert app.verdicts[-1].winner is None
