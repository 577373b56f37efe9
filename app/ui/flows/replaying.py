"""`triptych replay FILE --ui`: a recording asked again, into the screen.

The recorded exchanges are served by a loopback server (app/demo/replay_server.py) to providers
named `replay N`; this flow types each recorded prompt into the screen's prompt, as a user
would, so the answer comes through the same client, decoder and widgets as a live one. The chat
(or the comparison, on its first pane) opens its inspector first. Esc stops the answer, and
with it the replay.

A recorded prompt is literal text: an `@path` in it is not a file to attach now (the recording
already holds what was sent, and a missing file would stop the prompt at the screen). Should
the screen still not send a prompt, the replay stops within START_LIMIT and says so, instead of
waiting for an answer that never starts.
"""

from __future__ import annotations

import asyncio

from app.headless.replay_plan import ReplayPlan
from app.ui.flows.host import ChatHost
from app.ui.screens.chat import ChatScreen
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.at_paths import mentions
from app.ui.widgets.prompt import PromptInput
from app.wire.turn import Turn, TurnStatus

POLL = 0.05
START_LIMIT = 10.0  # seconds for a submitted prompt's answers to start


def _turns(host: ChatHost) -> list[Turn | None]:
    screen = host.screen
    if isinstance(screen, CompareScreen):
        return [pane.turn for pane in screen.panes]
    return [host.pane.turn]


async def run_replay(host: ChatHost, plan: ReplayPlan) -> None:
    await asyncio.sleep(0)  # after the first screen is up
    if isinstance(host.screen, ChatScreen | CompareScreen):
        await host.screen.run_action("inspect")  # on the selected pane's stream, side by side
    for number, (prompt, names) in enumerate(plan.steps, 1):
        screen = host.screen
        if isinstance(screen, ChatScreen):
            provider = host.config.providers[names[0]]
            if host.pane.provider.name != provider.name:
                await host.use_provider(provider, provider.model)
        before = [id(turn) for turn in _turns(host)]
        if isinstance(screen, ChatScreen | CompareScreen):
            # The recording's words, not a request to read files: an `@name` in them attaches
            # nothing (the file may be gone, or another by that name), as if it were pasted.
            screen.attaching.chips.handled.update(mentions(prompt))
        prompt_input = screen.query_one(PromptInput)
        prompt_input.post_message(PromptInput.Submitted(prompt_input, prompt))
        waited = 0.0
        while True:  # until every pane has a new turn, and it ended
            await asyncio.sleep(POLL)
            waited += POLL
            turns = _turns(host)
            started = all(t is not None and id(t) != b for t, b in zip(turns, before, strict=True))
            if started and all(t is not None and t.done for t in turns):
                break
            if not started and waited >= START_LIMIT:
                host.notify(
                    f"Replay stopped: recorded prompt {number} of {len(plan.steps)} was not "
                    "sent (it is back in the prompt); nothing after it is replayed.",
                    severity="error",
                    timeout=30,
                )
                return
        if any(t is not None and t.status is TurnStatus.STOPPED for t in turns):
            host.notify("Replay stopped.")
            return
    host.notify("Replay done: every recorded exchange was streamed again.")


__all__ = ["run_replay"]
