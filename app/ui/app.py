"""The Textual app: themes, the render clock, the screens' messages and a clean exit.

The top floor of app/ui: screens post messages up (switch provider, compare with, export,
continue alone, a conversation deleted, …) and the app handles each in one `on_…` method that
calls a flow (app/ui/flows/), passing itself as the flows' `ChatHost`. `run_tui` is what the
CLI calls. The app reads the same Config as `triptych ask` and sends a
request only when the user submits a prompt (or asks for the model list): no warm-up, no
generated titles.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.theme import Theme

from app.demo.names import is_demo
from app.display.sanitize import clean_line
from app.settings.api_keys import found_key_variables
from app.settings.config import Config, ProviderConfig
from app.settings.paths import config_path, screenshots_dir, state_path, user_themes_dir
from app.settings.state import State, load_state, save_state
from app.store.session import History, PaneHistory
from app.ui import textual_keys, textual_layout, textual_strips
from app.ui.clipboard import copy_text
from app.ui.crash_report import crash_report
from app.ui.flows import choosing, shaping
from app.ui.flows.connect import ClientMaker, StartChoice, start_choice
from app.ui.flows.conversations import Conversations
from app.ui.flows.host import ChatHost
from app.ui.flows.tooling import ToolSession, pick_tools
from app.ui.render_clock import RenderClock
from app.ui.screens.chat import ChatScreen
from app.ui.themes import DEFAULT_THEME, load_themes
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.chat_pane import ChatPane, Connect
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.welcome import WelcomeFacts

if TYPE_CHECKING:  # loaded when first used: the first frame needs neither
    from app.headless.batch import BatchJob
    from app.headless.replay_plan import ReplayPlan
    from app.ui.flows import inspecting
    from app.ui.lag_probe import LagProbe
    from app.ui.screens.api_key import SetKeyRequested
    from app.ui.screens.batch import BatchScreen
    from app.ui.screens.batch_answers import BatchAnswers
    from app.ui.screens.compare import CompareScreen
    from app.ui.screens.history import HistoryScreen
    from app.ui.screens.system_prompt import SystemPromptRequested

AGAIN_WINDOW = 2.0  # seconds: a second Ctrl+C within this quits even while a stream runs


class TriptychApp(ChatHost):
    CSS_PATH = "app.tcss"
    TITLE = "Triptych"
    # Textual's system commands only: each screen lists its own through its COMMANDS.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "quit", priority=True),
        # Not a priority binding: a selection in the focused prompt or on the screen is copied
        # first (Textual's own ctrl+c bindings skip when nothing is selected).
        Binding(
            "ctrl+c",
            "interrupt",
            "stop, twice: quit",
            show=False,
            tooltip="with text selected: copy",
        ),
        Binding("f1", "show_keys", "keys", show=False, tooltip="this sheet"),
    ]
    # Textual's own commands that ours replace: "Theme" ("Change theme…"), "Keys" (the key
    # sheet), and maximizing the focused widget (the prompt, which gains nothing by it).
    HIDDEN_SYSTEM_COMMANDS: ClassVar[frozenset[str]] = frozenset(
        {"Theme", "Keys", "Maximize", "Minimize"}
    )

    def __init__(
        self,
        config: Config,
        *,
        provider: str | None = None,
        model: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        connect: Connect | None = None,
        state_file: Path | None = None,
        themes_dir: Path | None = None,
        history_file: Path | None = None,
        continue_last: bool = False,
        compare: list[str] | None = None,
        replay: ReplayPlan | None = None,
        blind: bool = False,
        batch: BatchJob | None = None,
        local_probe: Callable[[], list[ProviderConfig]] | None = None,
    ) -> None:
        """`history_file` None runs without history (tests); run_tui passes history_path().
        `local_probe` finds the local servers after the first frame (None: their real ports).
        `compare`: start side by side with these providers (NAME or NAME:MODEL); `blind`:
        hiding who is who until the vote."""
        super().__init__()
        textual_layout.install()
        textual_strips.install()
        textual_keys.install()  # Alt+1 is a key for the bindings, not `¡` typed in the prompt
        self.history = History.later(history_file)  # opened after the first frame
        self.conversations = Conversations(self, self.history)
        self.continue_last = continue_last
        self.config = config
        self.state_file = state_file if state_file is not None else state_path()
        self.state = load_state(self.state_file)
        self.render_clock = RenderClock(self, clock=clock, on_live=self._streaming)
        self._steadied: list[PromptInput] = []  # the prompts whose blinking a stream stopped
        self._interrupted_at: float | None = None  # the last Ctrl+C that stopped a stream
        self._maker = ClientMaker(config)
        self.connect = connect if connect is not None else self._maker.connect
        self.compare = compare
        self.replay = replay  # recorded prompts to ask again once the screen is up
        self.session_recording: inspecting.SessionRecording | None = None
        self.blind = blind
        self.batch = batch  # `triptych batch … --ui`: run under its table once the app is up
        self.batch_status: int | None = None  # how that run ended: the app's exit status
        self.saved_recordings: dict[str, Path] = {}  # what `s` in the inspector wrote, by digest
        self.start = start_choice(config, provider, model, self.state)
        self.local_probe = local_probe if local_probe is not None else _probe_local_servers
        self.tools = ToolSession(config)
        self._last_used = self.start.last_used  # shown in the header until the user switches
        self.key_missing = self._maker.key_missing
        self.pane = ChatPane(
            provider=self.start.provider,
            model=self.start.model,
            connect=self.connect,
            clock=self.render_clock,
            system=config.system,
            keep_reasoning_open=config.ui.reasoning_open,
            reading_width=config.ui.reading_width,
            history=PaneHistory(self.history.record(system=config.system)),
            tools=self.tools,
            key_missing=self.key_missing,
            id="pane",
        )
        self.reasoning_open = config.ui.reasoning_open
        loaded = load_themes(themes_dir if themes_dir is not None else user_themes_dir())
        self.theme_problems = loaded.problems
        for theme in loaded.themes:
            self.register_theme(theme)
        # Before the stylesheet is first parsed: set in on_mount, the theme made Textual parse
        # all the CSS again before the first frame. See refresh_css.
        self._styled = False
        self.theme = self._initial_theme()
        self._probe: LagProbe | None = None
        if os.environ.get("TRIPTYCH_LAG_LOG"):  # the benches' probe only (app/ui/lag_probe.py)
            from app.ui.lag_probe import LagProbe

            self._probe = LagProbe.from_env()
        if self._probe is not None:
            self._probe.progress = self._parts_received
            self._probe.ticks = lambda: self.render_clock.ticks

    def refresh_css(self, animate: bool = True) -> None:
        """Before the app mounts, nothing is styled yet and the stylesheet's first parse is still
        to come: a theme set then needs only its variables in the stylesheet. Textual's refresh
        (which setting the theme queues) would re-parse every source read so far for nothing,
        ~5-10 ms of the first frame."""
        if not self._styled:
            self.stylesheet.set_variables(self.get_css_variables())
            return
        super().refresh_css(animate)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands less the ones ours duplicate (quit, screenshot stay)."""
        for command in super().get_system_commands(screen):
            if command.title not in self.HIDDEN_SYSTEM_COMMANDS:
                yield command

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """The palette's "Screenshot": to Downloads, else to the data dir's screenshots/
        (Textual then says where it saved it, or that it could not)."""
        if path is None:
            where = screenshots_dir()
            try:
                where.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                self.notify(f"Cannot save a screenshot in {where}: {exc}", markup=False)
                return None
            path = str(where)
        return super().deliver_screenshot(filename, path, time_format)

    def _streaming(self, live: bool) -> None:
        """While anything streams, the prompt's cursor stays lit instead of blinking: each
        blink is a frame of its own (two a second), about 2% of the CPU of a 200 tok/s answer
        (bench/README.md), and a steady cursor beside moving text is calmer to read."""
        if live:
            self._steadied = [
                prompt
                for screen in self.screen_stack
                for prompt in screen.query(PromptInput)
                if prompt.cursor_blink
            ]
            for prompt in self._steadied:
                prompt.cursor_blink = False
        else:  # only the ones it stopped: a cursor set still stays still
            for prompt in self._steadied:
                prompt.cursor_blink = True
            self._steadied = []

    def copy_to_clipboard(self, text: str) -> None:
        """Every copy (a selection too) also goes to tmux inside tmux, and says where it went."""
        copy_text(self, text)

    def action_show_keys(self) -> None:
        """The key sheet for the screen on top (F1 again, or Esc, closes it)."""
        from app.ui.screens.keys import KeysScreen, key_groups  # when first asked for

        screen = self.screen
        if isinstance(screen, KeysScreen):
            screen.dismiss()
            return
        self.push_screen(KeysScreen(key_groups(screen)))

    def on_prompt_input_keys_wanted(self, message: PromptInput.KeysWanted) -> None:
        self.action_show_keys()

    def _parts_received(self) -> int:
        turn = self.pane.turn
        return 0 if turn is None else len(turn.text_parts)

    def get_default_screen(self) -> Screen[Any]:
        self.chat_screen = ChatScreen(
            self.pane, welcome=self.welcome_facts, streams=self.history.stream
        )
        return self.chat_screen

    def welcome_facts(self) -> WelcomeFacts:
        """What the card in an empty chat says: the demo, or the provider; where to put a
        config when there is none."""
        provider = self.pane.provider
        create = config_path() if self.config.path is None else None
        keys = found_key_variables(self.config, os.environ)
        return WelcomeFacts(provider.name, self.pane.model, is_demo(provider.name), create, keys)

    def on_mount(self) -> None:
        self._styled = True  # Textual has applied the stylesheet: a change of theme re-styles
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        # The theme was set in __init__, before anyone listened: remember it (and the config's
        # theme) as its change would have, after the first frame: a first start writes the state
        # file then, with an fsync. The theme as it is by then: the user may have
        # changed it already.
        self.call_after_refresh(self.remember)
        self._show_title()
        self._announce_start(self.start, quiet=bool(self.compare and self.blind))
        problems = [*self.config.warnings, *self.theme_problems]
        if self.compare:  # over the chat, which "continue alone" goes back to
            from app.ui.flows import comparing

            comparison = comparing.startup_screen(self, self.compare, blind=self.blind)
            problems = comparison.hold_back(problems)  # blind: those naming a pane, later
        for problem in problems:
            self.notify(problem, severity="warning", timeout=8, markup=False)
        self.tools.start(self)
        if self.compare:
            self.push_screen(comparison)
        if self.continue_last:
            self.call_after_refresh(self._continue_last)  # once the chat screen is mounted
        if self.batch is not None:
            from app.ui.flows import batching

            running = batching.run_live_batch(self, self.batch)
            self.call_after_refresh(lambda: self.run_worker(running, exit_on_error=False))
        if self.replay is not None:
            from app.ui.flows import replaying

            plan = self.replay
            self.call_after_refresh(
                lambda: self.run_worker(replaying.run_replay(self, plan), exit_on_error=False)
            )
        if self._probe is not None:
            self._probe.start()
        self.call_after_refresh(self._first_frame_shown)

    def _first_frame_shown(self) -> None:
        """After the first frame: the start-up heap is never garbage, so it is put out of the
        collector's sight, and the collector runs again (`triptych` turns it off while the UI
        starts: app/cli.py). Then the history opens (if nothing used it yet), on a thread, and
        says what happened to its file; the MCP servers start, each on its own."""
        gc.freeze()
        gc.enable()
        self.run_worker(self._open_history(), group="history", exit_on_error=False)
        self.tools.start_servers(self)
        if self.replay is None:  # a replay's providers are its recording's
            self.run_worker(self._find_local_servers(), group="local", exit_on_error=False)

    async def _find_local_servers(self) -> None:
        """Local servers (Ollama, LM Studio, …) join the provider list once found: probed on a
        thread after the first frame, so neither the first screen nor a prompt waits for it."""
        found = await asyncio.to_thread(self.local_probe)
        if found:
            from app.providers.local import with_local

            self.config = with_local(self.config, found, config_path())

    async def _open_history(self) -> None:
        """Opened on a thread: opening may wait up to the store's busy timeout (10 s) for
        another program that holds the file, and the screen must not freeze meanwhile. A prompt
        sent in that time waits for the file (history's own lock), as it would have anyway.
        What happened is told from the loop, which nothing on the thread waits for (an app
        closing meanwhile just cancels this)."""
        if self.history.waiting:
            await asyncio.to_thread(self.history.open_now)
        self.conversations.announce()

    def _initial_theme(self) -> str:
        """The remembered theme, unless the config's `ui.theme` changed since it was
        remembered (as for the provider and model: an edit of the config is never ignored)."""
        configured = self.config.ui.theme or ""
        known = self.state.config_theme
        changed = known is not None and known != configured
        order = (configured, self.state.theme) if changed else (self.state.theme, configured)
        for name in order:
            if name and name in self.available_themes:
                return name
        return DEFAULT_THEME

    def _announce_start(self, start: StartChoice, *, quiet: bool = False) -> None:
        """Say once that an edited config beat the remembered choice (and remember it);
        `quiet` when a blind comparison starts: the notice would name a provider."""
        if start.config_changed and not quiet:
            where = self.config.path.name if self.config.path is not None else "The config"
            self.notify(
                f"{where} changed since your last session: using "
                f"{start.provider.name} · {start.model}.",
                timeout=8,
                markup=False,
            )
        if start.learn:  # the theme stays as remembered: the config's own may still change
            self.remember(theme=self.state.theme)

    def _show_title(self) -> None:
        mark = " (last used)" if self._last_used else ""
        system = shaping.system_label(self.config, self.pane.conversation.system)
        named = f" · system: {system}" if system else ""
        # A model named by a recording (`replay --ui`) or a server is outside text: drawn as it
        # is, an escape in it would reach the terminal on every repaint of the header.
        title = f"{self.pane.provider.name} · {self.pane.model}{mark}{named}"
        self.sub_title = clean_line(title)

    def show_title(self) -> None:
        self._show_title()

    def _theme_changed(self, theme: Theme) -> None:
        self.remember(theme=theme.name)

    def remember(self, **changes: str | None) -> None:
        """Save the last provider/model/theme, with what the config chose then (so a later
        edit of the config is noticed); failing to save is never worth an error."""
        provider = self.pane.provider.name
        configured = self.config.providers.get(provider)
        current = {
            "provider": provider,
            "model": self.pane.model,
            "theme": self.theme,
            "config_default": self.config.default,
            "config_model": None if configured is None else configured.model,
            "config_theme": self.config.ui.theme or "",
        }
        current.update(changes)
        state = State(**current)
        if state == self.state and self.state_file.exists():
            return  # e.g. each start: what the file holds already (no write, no fsync)
        self.state = state
        with contextlib.suppress(OSError):
            save_state(self.state_file, self.state)

    async def use_provider(self, provider: ProviderConfig, model: str) -> None:
        await self.pane.use(provider, model)
        missing = self.pane.key_missing()
        if missing is not None:  # at once, not when a prompt fails
            self.notify(
                f"{missing} (or Ctrl+P: Set a key until you quit…)",
                severity="warning",
                timeout=8,
                markup=False,
            )
        self._last_used = False
        self._show_title()
        await self.chat_screen.show_welcome()
        self.remember()

    def switch_to(self, provider: ProviderConfig, model: str) -> None:
        self.run_worker(self.use_provider(provider, model), group="switch", exit_on_error=False)

    def _continue_last(self) -> None:
        reopen = self.conversations.continue_last()
        self.run_worker(reopen, group="switch", exit_on_error=False)

    def action_show_history(self) -> None:
        self.conversations.show()

    def action_new_chat(self) -> None:
        self.run_worker(self.chat_screen.action_new_chat(), group="switch", exit_on_error=False)

    def on_chat_pane_turn_drawn(self, message: ChatPane.TurnDrawn) -> None:
        if self._probe is not None:
            self.call_after_refresh(self._probe.frame_settled)
        if self.session_recording is not None:
            self.session_recording.add(self, message.turn.exchange)

    def on_chat_screen_record_session_requested(
        self, message: ChatScreen.RecordSessionRequested
    ) -> None:
        if self.session_recording is not None:
            self.session_recording.stop(self)
            self.session_recording = None
        else:
            from app.ui.flows import inspecting  # with the first recording

            self.session_recording = inspecting.SessionRecording.start(
                self, self.pane.provider.name
            )
        recording = self.session_recording
        self.chat_screen.recording_to = None if recording is None else recording.path

    # -- what the screens ask of the app -----------------------------------------------------

    def on_chat_screen_switch_provider_requested(
        self, message: ChatScreen.SwitchProviderRequested
    ) -> None:
        choosing.pick_provider(self)

    def on_set_key_requested(self, message: SetKeyRequested) -> None:
        """The palette's "Set a key until you quit…": a masked field; the key is kept in
        memory for this run (as if its variable were set) and scrubbed like every key."""
        from app.ui.screens.api_key import ApiKeyScreen

        provider = self.pane.provider
        variable = provider.api_key_env
        if not variable:
            self.notify(f"{provider.name} takes no key from a variable.", markup=False)
            return

        def given(key: str | None) -> None:
            if not key:
                return
            self._maker.session_keys.set(variable, key)
            self.run_worker(self.pane.reconnect(), group="switch", exit_on_error=False)
            self.notify(f"Key set for ${variable} until you quit.", markup=False)

        self.push_screen(ApiKeyScreen(provider.name, variable), given)

    def on_chat_screen_switch_model_requested(
        self, message: ChatScreen.SwitchModelRequested
    ) -> None:
        choosing.pick_model(self)

    def on_system_prompt_requested(self, message: SystemPromptRequested) -> None:
        shaping.pick_system_prompt(self)

    def on_chat_screen_compare_with_requested(
        self, message: ChatScreen.CompareWithRequested
    ) -> None:
        from app.ui.flows import comparing

        comparing.pick_comparison(self)

    def on_chat_screen_save_recording_requested(
        self, message: ChatScreen.SaveRecordingRequested
    ) -> None:
        from app.ui.flows import inspecting  # with the first recording

        inspecting.save_recording(self, message.exchange, message.provider)

    def on_chat_screen_choose_tools_requested(
        self, message: ChatScreen.ChooseToolsRequested
    ) -> None:
        pick_tools(self, self.tools)

    def on_compare_screen_choose_tools_requested(
        self, message: CompareScreen.ChooseToolsRequested
    ) -> None:
        pick_tools(self, self.tools)

    def on_chat_screen_leaderboard_requested(
        self, message: ChatScreen.LeaderboardRequested
    ) -> None:
        from app.ui.flows import leaderboard

        self.run_worker(
            leaderboard.show_leaderboard(self), group="leaderboard", exit_on_error=False
        )

    def on_chat_screen_export_requested(self, message: ChatScreen.ExportRequested) -> None:
        self.conversations.export(message.fmt)

    def on_chat_screen_toggle_reasoning_requested(
        self, message: ChatScreen.ToggleReasoningRequested
    ) -> None:
        self.action_toggle_reasoning()

    def on_compare_screen_continue_alone(self, message: CompareScreen.ContinueAlone) -> None:
        from app.ui.flows import comparing

        continuing = comparing.continue_alone(self, message.pane)
        self.run_worker(continuing, group="switch", exit_on_error=False)

    def on_batch_screen_open_prompt(self, message: BatchScreen.OpenPrompt) -> None:
        from app.ui.flows import batching

        opening = batching.open_prompt(self, message.screen, message.row)
        self.run_worker(opening, group="switch", exit_on_error=False)

    def on_batch_answers_back(self, message: BatchAnswers.Back) -> None:
        from app.ui.flows import batching

        self.run_worker(batching.back_to_table(self, message.answers), exit_on_error=False)

    def on_compare_screen_export_requested(self, message: CompareScreen.ExportRequested) -> None:
        self.conversations.export(message.fmt, message.record)

    def on_compare_screen_toggle_reasoning_requested(
        self, message: CompareScreen.ToggleReasoningRequested
    ) -> None:
        self.action_toggle_reasoning()
        message.comparison.keep_reasoning_open(self.reasoning_open)  # new turns follow

    def on_history_screen_deleted(self, message: HistoryScreen.Deleted) -> None:
        self.conversations.deleted(message.conv_id)

    def action_toggle_reasoning(self) -> None:
        """Open every reasoning pane if any is closed, else close them all; new turns follow."""
        views = list(self.query(AssistantTurn))
        with_reasoning = [v for v in views if v.reasoning.chars]
        self.reasoning_open = any(v.reasoning.collapsed for v in with_reasoning) or (
            not with_reasoning and not self.reasoning_open
        )
        self.pane.keep_reasoning_open = self.reasoning_open
        for view in views:
            view.keep_reasoning_open = self.reasoning_open
            view.set_reasoning_open(self.reasoning_open)

    def running_panes(self) -> list[ChatPane]:
        """Every pane whose answer is still arriving: the chat's and any comparison's."""
        from app.ui.screens.compare import CompareScreen

        panes = [self.pane]
        for screen in self.screen_stack:
            if isinstance(screen, CompareScreen):
                panes.extend(screen.panes)
        return [
            pane
            for pane in panes
            if (pane.turn is not None and not pane.turn.done) or pane.running_tools
        ]

    async def action_interrupt(self) -> None:
        """Ctrl+C: stop what streams (a reflex must not lose the conversation's end), or quit
        when nothing does or when it follows a stopping Ctrl+C within AGAIN_WINDOW seconds."""
        now = self.render_clock.now()
        last, self._interrupted_at = self._interrupted_at, None
        running = self.running_panes()
        if running and (last is None or now - last > AGAIN_WINDOW):
            for pane in running:
                pane.stop()
            self.screen.refresh_bindings()
            self._interrupted_at = now
            self.notify("Stopped — press Ctrl+C again to quit.", timeout=AGAIN_WINDOW + 1)
            return
        await self.action_quit()

    async def action_quit(self) -> None:
        """Stop streams (closing their connections) before leaving."""
        from app.ui.flows import comparing

        await comparing.close_comparisons(self)
        await self.pane.aclose()
        await self.tools.aclose()
        await self._maker.aclose()
        self.exit(0)

    def _fatal_error(self) -> None:
        """Textual's crash exit, with a report that has no locals and no secrets in it."""
        self.bell()
        self._exit_renderables.append(crash_report(self.config, self._maker.session_keys.values()))
        self._close_messages_no_wait()

    def on_unmount(self) -> None:
        """However the app ends: GC back on, the demo server down, the lag report written."""
        self.render_clock.stop()
        self._maker.close_demo()
        self.history.close()
        if self._probe is not None:
            self._probe.write()
            self._probe = None


def _probe_local_servers() -> list[ProviderConfig]:
    from app.providers.local import probe_now  # httpx: after the first frame, on a thread

    return probe_now()


def run_tui(
    config: Config,
    *,
    provider: str | None,
    model: str | None,
    compare: list[str] | None,
    continue_last: bool,
    replay: ReplayPlan | None = None,
    blind: bool = False,
    batch: BatchJob | None = None,
) -> int:
    """Run the chat UI (side by side when `compare` names providers) with the history file
    in the data dir."""
    from app.store.location import history_path  # names the file; the app opens it later

    app = TriptychApp(
        config,
        provider=provider,
        model=model,
        history_file=None if replay is not None else history_path(),  # a replay is not new
        continue_last=continue_last,
        compare=compare,
        replay=replay,
        blind=blind,
        batch=batch,
    )
    result = app.run()
    if batch is not None and not app.return_code:  # as `triptych batch` exits; 130: not run
        return 130 if app.batch_status is None else app.batch_status
    return app.return_code or int(result or 0)  # a crash sets return_code 1


__all__ = ["TriptychApp", "run_tui"]
